// `ugsearch cost PROGRAM|MUGRAPH [--gpu h100|a100] [--json]`: the cost model's breakdown (docs/design.md §8):
// a program's three plans (unfused, xla, astitch), or one μGraph's cost.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "ugs/cost/cost_json.h"
#include "ugs/cost/cost_text.h"
#include "ugs/cost/plans.h"
#include "ugs/io/mugraph_json.h"
#include "ugs/io/program.h"
#include "ugs/util/error.h"
#include "ugs/util/files.h"
#include "verbs.h"

namespace ugs::cli {
namespace {

// A built-in name or a JSON file with top-level "ops" is a program; "kernels" (a μGraph) or
// "mugraphs" (a results file) is a μGraph.
bool is_program(const std::string& arg) {
  for (const BuiltinProgram& b : builtin_programs())
    if (b.name == arg) return true;
  if (arg.find('/') == std::string::npos && arg.find('.') == std::string::npos) return true;  // load_program explains
  const nlohmann::json doc = nlohmann::json::parse(read_file(arg), nullptr, false);
  if (doc.is_discarded()) throw InputError(arg + ": not valid JSON; check brackets, commas and quotes");
  if (doc.is_object() && doc.contains("ops")) return true;
  if (doc.is_object() && (doc.contains("kernels") || doc.contains("mugraphs"))) return false;
  throw InputError(arg + ": neither a program (top-level 'ops') nor a μGraph ('kernels') or results file ('mugraphs')");
}

int print_plans(const std::string& arg, const GpuSpec& gpu, bool json) {
  const Program program = load_program(arg);
  nlohmann::json out = {{"program", program.name}, {"gpu", gpu_json(gpu)}, {"plans", nlohmann::json::array()}};
  std::string summary = summary_header(), details;
  for (Plan plan : kPlans) {
    const Cost cost = estimate_plan(program.graph, plan, gpu);
    out["plans"].push_back({{"plan", name_of(plan)}, {"cost", cost_json(cost)}});
    summary += summary_line(name_of(plan), cost);
    details += fmt::format("\n{}:\n{}", name_of(plan), kernel_table(cost, 2));
  }
  if (json)
    fmt::print("{}\n", out.dump(2));
  else
    fmt::print("{} on {}\n{}{}", program.name, gpu_line(gpu), summary, details);
  return 0;
}

int print_mugraph(const std::string& arg, const GpuSpec& gpu, bool json) {
  const KernelGraph mugraph = load_mugraph(arg, GraphRules{});
  const Cost cost = estimate(mugraph, gpu);
  if (json)
    fmt::print("{}\n", nlohmann::json{{"mugraph", arg}, {"gpu", gpu_json(gpu)}, {"cost", cost_json(cost)}}.dump(2));
  else
    fmt::print("μGraph {} on {}\n{}", arg, gpu_line(gpu), kernel_table(cost, 2));
  return 0;
}

}  // namespace

Verb add_cost(CLI::App& app) {
  struct Opts {
    std::string input, gpu = "h100";
    bool json = false;
  };
  auto args = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("cost", "Estimated time of a program's three plans (unfused, xla, astitch) or of a μGraph");
  cmd->add_option("INPUT", args->input, "Built-in program name, program file, μGraph file or results file")
      ->required();
  const std::vector<std::string> gpus(gpu_names().begin(), gpu_names().end());
  cmd->add_option("--gpu", args->gpu, "Target GPU preset")->check(CLI::IsMember(gpus))->capture_default_str();
  cmd->add_flag("--json", args->json, "Print the breakdown as JSON");
  return {cmd, [args] {
            const GpuSpec gpu = *gpu_preset(args->gpu);
            return is_program(args->input) ? print_plans(args->input, gpu, args->json)
                                           : print_mugraph(args->input, gpu, args->json);
          }};
}

}  // namespace ugs::cli
