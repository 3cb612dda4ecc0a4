#pragma once
// Input programs (docs/design.md §1): JSON files of predefined ops, parsed with shape inference and the LAX
// check into a kernel graph plus the names the user gave. Built-in programs are addressable by name.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ugs/ir/graph.h"
#include "ugs/search/generator/mirage_space.h"

namespace ugs {

struct Program {
  std::string name;
  std::vector<std::string> tensor_names;  // inputs, then one per op
  KernelGraph graph;                      // inputs, predefined ops, outputs
  nlohmann::json source;                  // the program as read
  nlohmann::json search_preset;           // its recommended search config ("search"), or null
  // How Mirage's benchmark searches it ("mirage": {"config": NAME, "scale": N}): the named config,
  // and how many times smaller than that benchmark's shapes its large dims are.
  MirageConfig mirage_config = MirageConfig::Default;
  int32_t mirage_scale = 1;

  const std::string& input_name(int i) const { return tensor_names[i]; }
};

// Parses program text; `origin` (a path or a built-in name) prefixes every message. Throws
// InputError with one line naming the origin, the op and the reason.
Program parse_program(std::string_view text, const std::string& origin);
// A built-in name (`ugsearch programs`) or a path to a program file.
Program load_program(const std::string& name_or_path);

struct BuiltinProgram {
  std::string_view name;
  std::string_view json;
};
// The programs of experiments/programs/, compiled into the binary.
const std::vector<BuiltinProgram>& builtin_programs();

}  // namespace ugs
