// libFuzzer target: any bytes given to the μGraph reader (`ugsearch show/cost/verify FILE`, both a
// μGraph file and a results file, whose first μGraph is read) yield a valid μGraph or an InputError,
// never a crash, a hang or undefined behaviour (built with address and undefined sanitizers). A
// μGraph read is valid: its canonical JSON reads back to the same structural hash, also when wrapped
// as a results file, and canonicalizing it (as `ugsearch show` does) leaves it canonical.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ugs/io/mugraph_json.h"
#include "ugs/ir/canonical.h"
#include "ugs/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ugs::GraphRules rules;
  ugs::KernelGraph graph;
  try {
    graph = ugs::parse_mugraph(text, "fuzz", rules);
  } catch (const ugs::InputError&) {
    return 0;
  }
  const uint64_t hash = ugs::structural_hash(graph);
  const nlohmann::json doc = ugs::to_json(graph);
  nlohmann::json results;
  results["mugraphs"][0]["graph"] = doc;
  try {
    if (ugs::structural_hash(ugs::mugraph_from_json(doc, "fuzz: written back", rules)) != hash) __builtin_trap();
    if (ugs::structural_hash(ugs::parse_mugraph(results.dump(), "fuzz: as results", rules)) != hash) __builtin_trap();
  } catch (const ugs::InputError&) {
    __builtin_trap();  // a μGraph the reader accepted, written by the writer, must read back
  }
  if (ugs::canonicalize(graph, rules) && !ugs::is_canonical(graph)) __builtin_trap();
  return 0;
}
