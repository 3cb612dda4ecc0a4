// `ugsearch programs`: the built-in programs with their shapes.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "ugs/io/program.h"
#include "verbs.h"

namespace ugs::cli {
namespace {

nlohmann::json shape_json(const Shape& s) { return std::vector<int32_t>(s.d.begin(), s.d.begin() + s.rank); }

}  // namespace

Verb add_programs(CLI::App& app) {
  auto* cmd = app.add_subcommand("programs", "List the built-in programs (or check the given ones) with their shapes");
  auto json_out = std::make_shared<bool>(false);
  auto names = std::make_shared<std::vector<std::string>>();
  cmd->add_option("PROGRAM", *names, "Program files or built-in names to check and list (default: all built-ins)");
  cmd->add_flag("--json", *json_out, "Print JSON instead of a table");
  return {cmd, [json_out, names] {
            nlohmann::json all = nlohmann::json::array();
            std::vector<Program> programs;
            for (const std::string& n : *names) programs.push_back(load_program(n));
            if (names->empty())
              for (const BuiltinProgram& b : builtin_programs()) programs.push_back(parse_program(b.json, std::string(b.name)));
            for (const Program& program : programs) {
              const KernelGraph& graph = program.graph;
              std::string ins, outs;
              nlohmann::json entry = {{"name", program.name},
                                      {"inputs", nlohmann::json::array()},
                                      {"outputs", nlohmann::json::array()},
                                      {"ops", graph.ops.size()}};
              for (int t = 0; t < graph.num_inputs; ++t) {
                ins += fmt::format("{}{} {}", t ? ", " : "", program.tensor_names[t], to_string(graph.shape(t)));
                entry["inputs"].push_back({{"name", program.tensor_names[t]}, {"shape", shape_json(graph.shape(t))}});
              }
              for (int32_t t : graph.outputs) {
                outs += fmt::format("{}{} {}", outs.empty() ? "" : ", ", program.tensor_names[t],
                                    to_string(graph.shape(t)));
                entry["outputs"].push_back({{"name", program.tensor_names[t]}, {"shape", shape_json(graph.shape(t))}});
              }
              if (*json_out)
                all.push_back(entry);
              else
                fmt::print("{:<20} {} ops  in: {}  out: {}\n", program.name, graph.ops.size(), ins, outs);
            }
            if (*json_out) fmt::print("{}\n", all.dump(2));
            return 0;
          }};
}

}  // namespace ugs::cli
