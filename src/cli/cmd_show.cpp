// `ugsearch show MUGRAPH [--dot|--json]`: a μGraph in canonical form, with its hash.
#include <fmt/format.h>

#include "ugs/io/dot.h"
#include "ugs/io/mugraph_json.h"
#include "ugs/io/text.h"
#include "ugs/ir/canonical.h"
#include "verbs.h"

namespace ugs::cli {

Verb add_show(CLI::App& app) {
  struct Opts {
    std::string path;
    bool dot = false, json = false;
  };
  auto args = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("show", "Print a μGraph (a μGraph file or a results file's first μGraph)");
  cmd->add_option("MUGRAPH", args->path, "μGraph or results file")->required();
  auto* dot = cmd->add_flag("--dot", args->dot, "Print Graphviz DOT");
  cmd->add_flag("--json", args->json, "Print the canonical JSON with its hash")->excludes(dot);
  return {cmd, [args] {
            const GraphRules rules;
            KernelGraph mugraph = load_mugraph(args->path, rules);
            const bool canonical = canonicalize(mugraph, rules);
            const std::string hash = fmt::format("{:016x}", structural_hash(mugraph));
            if (args->dot) {
              fmt::print("{}", to_dot(mugraph));
            } else if (args->json) {
              const nlohmann::json j = {{"hash", hash}, {"canonical", canonical}, {"graph", to_json(mugraph)}};
              fmt::print("{}\n", j.dump(2));
            } else {
              fmt::print("μGraph {}{}\n{}", hash, canonical ? "" : "  (no canonical order exists)", to_text(mugraph));
            }
            return 0;
          }};
}

}  // namespace ugs::cli
