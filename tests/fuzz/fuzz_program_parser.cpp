// libFuzzer target: any bytes given to the program parser yield a program or an InputError, never a
// crash, a hang or undefined behaviour (built with address and undefined sanitizers).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ugs/io/program.h"
#include "ugs/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const ugs::Program p = ugs::parse_program(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    if (p.graph.outputs.empty()) __builtin_trap();  // a parsed program always has outputs
  } catch (const ugs::InputError&) {
  }
  return 0;
}
