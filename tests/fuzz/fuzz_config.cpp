// libFuzzer target: any bytes given to the search-config reader (`--config FILE` and a program's
// "search" preset) over the default config yield a config or an InputError, never a crash, a hang or
// undefined behaviour (built with address and undefined sanitizers). A config read round-trips: its
// JSON (as saved with every result) applied to a fresh default config gives the same JSON.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ugs/search/generator/config.h"
#include "ugs/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto doc = nlohmann::json::parse(std::string_view(reinterpret_cast<const char*>(data), size), nullptr, false);
  if (doc.is_discarded()) return 0;  // the JSON parser is not what is fuzzed here
  ugs::SearchConfig cfg;
  try {
    ugs::apply_config_json(cfg, doc, "fuzz");
  } catch (const ugs::InputError&) {
    return 0;
  }
  const nlohmann::json saved = ugs::config_to_json(cfg);
  ugs::SearchConfig again;
  try {
    ugs::apply_config_json(again, saved, "fuzz: written back");
  } catch (const ugs::InputError&) {
    __builtin_trap();  // a config the reader accepted, written by the writer, must read back
  }
  if (ugs::config_to_json(again) != saved) __builtin_trap();
  return 0;
}
