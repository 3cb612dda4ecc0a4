// `ugsearch verify PROGRAM MUGRAPH`: exit 0 equivalent, 1 not equivalent, 2 bad input.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "ugs/eval/verify.h"
#include "ugs/io/mugraph_json.h"
#include "ugs/io/program.h"
#include "ugs/util/error.h"
#include "verbs.h"

namespace ugs::cli {

Verb add_verify(CLI::App& app) {
  struct Opts {
    std::string program, mugraph, field = "wide";
    int tests = 3;
    uint64_t seed = 1;
    bool no_float = false, json = false, quiet = false;
    double tolerance = 1e-9;
  };
  auto args = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("verify", "Test a μGraph for equivalence with a program (exit 0 yes, 1 no, 2 bad input)");
  cmd->add_option("PROGRAM", args->program, "Built-in program name or program file")->required();
  cmd->add_option("MUGRAPH", args->mugraph, "μGraph file or results file")->required();
  cmd->add_option("--field", args->field, "Finite field of the tests")
      ->check(CLI::IsMember({"wide", "mirage", "both"}));
  cmd->add_option("--tests", args->tests, "Independent finite-field tests per field")->check(CLI::Range(1, 1000));
  cmd->add_option("--seed", args->seed, "Seed of inputs and ω");
  cmd->add_option("--tolerance", args->tolerance, "Largest relative error accepted by the float64 check")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--no-float", args->no_float, "Skip the float64 check");
  cmd->add_flag("--json", args->json, "Print the result as JSON");
  cmd->add_flag("--quiet", args->quiet, "Print nothing; the exit status answers");
  return {cmd, [args] {
            const Program program = load_program(args->program);
            const KernelGraph mugraph = load_mugraph(args->mugraph, GraphRules{});
            const std::string mismatch = interface_mismatch(program.graph, mugraph);
            if (mismatch.rfind("inputs", 0) == 0)
              throw InputError(args->mugraph + ": not a μGraph of " + program.name + " (" + mismatch + ")");
            nlohmann::json out = {
                {"program", program.name}, {"mugraph", args->mugraph}, {"fields", nlohmann::json::array()}};
            bool all = true;
            for (const char* field : {"wide", "mirage"}) {
              if (args->field != field && args->field != "both") continue;
              VerifyOptions vo{*field_from_name(field), args->tests, args->seed, !args->no_float, args->tolerance};
              const VerifyResult result = verify(program.graph, mugraph, vo);
              all = all && result.equivalent;
              out["fields"].push_back({{"field", field},
                                       {"equivalent", result.equivalent},
                                       {"tests_run", result.tests_run},
                                       {"tests_passed", result.tests_passed},
                                       {"float_rel_error", result.float_rel_error},
                                       {"zero_divisors", result.zero_divisors},
                                       {"reason", result.reason}});
              if (args->quiet || args->json) continue;
              if (result.equivalent)
                fmt::print(
                    "equivalent: {} {} tests passed{}\n", result.tests_passed, field,
                    vo.float_check ? fmt::format(", float64 relative error {:.2e}", result.float_rel_error) : "");
              else
                fmt::print("not equivalent: {}\n", result.reason);
            }
            out["equivalent"] = all;
            if (args->json && !args->quiet) fmt::print("{}\n", out.dump(2));
            return all ? 0 : 1;
          }};
}

}  // namespace ugs::cli
