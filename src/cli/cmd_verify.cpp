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
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("verify", "Test a μGraph for equivalence with a program (exit 0 yes, 1 no, 2 bad input)");
  cmd->add_option("PROGRAM", o->program, "Built-in program name or program file")->required();
  cmd->add_option("MUGRAPH", o->mugraph, "μGraph file or results file")->required();
  cmd->add_option("--field", o->field, "Finite field of the tests")->check(CLI::IsMember({"wide", "mirage", "both"}));
  cmd->add_option("--tests", o->tests, "Independent finite-field tests per field")->check(CLI::Range(1, 1000));
  cmd->add_option("--seed", o->seed, "Seed of inputs and ω");
  cmd->add_option("--tolerance", o->tolerance, "Largest relative error accepted by the float64 check")->check(CLI::PositiveNumber);
  cmd->add_flag("--no-float", o->no_float, "Skip the float64 check");
  cmd->add_flag("--json", o->json, "Print the result as JSON");
  cmd->add_flag("--quiet", o->quiet, "Print nothing; the exit status answers");
  return {cmd, [o] {
            const Program p = load_program(o->program);
            const KernelGraph g = load_mugraph(o->mugraph, GraphRules{});
            const std::string mismatch = interface_mismatch(p.graph, g);
            if (mismatch.rfind("inputs", 0) == 0)
              throw InputError(o->mugraph + ": not a μGraph of " + p.name + " (" + mismatch + ")");
            nlohmann::json out = {{"program", p.name}, {"mugraph", o->mugraph}, {"fields", nlohmann::json::array()}};
            bool all = true;
            for (const char* f : {"wide", "mirage"}) {
              if (o->field != f && o->field != "both") continue;
              VerifyOptions vo{*field_from_name(f), o->tests, o->seed, !o->no_float, o->tolerance};
              const VerifyResult r = verify(p.graph, g, vo);
              all = all && r.equivalent;
              out["fields"].push_back({{"field", f}, {"equivalent", r.equivalent}, {"tests_run", r.tests_run},
                                       {"tests_passed", r.tests_passed}, {"float_rel_error", r.float_rel_error},
                                       {"zero_divisors", r.zero_divisors}, {"reason", r.reason}});
              if (o->quiet || o->json) continue;
              if (r.equivalent)
                fmt::print("equivalent: {} {} tests passed{}\n", r.tests_passed, f,
                           vo.float_check ? fmt::format(", float64 relative error {:.2e}", r.float_rel_error) : "");
              else
                fmt::print("not equivalent: {}\n", r.reason);
            }
            out["equivalent"] = all;
            if (o->json && !o->quiet) fmt::print("{}\n", out.dump(2));
            return all ? 0 : 1;
          }};
}

}  // namespace ugs::cli
