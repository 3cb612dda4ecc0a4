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
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("show", "Print a μGraph (a μGraph file or a results file's first μGraph)");
  cmd->add_option("MUGRAPH", o->path, "μGraph or results file")->required();
  auto* dot = cmd->add_flag("--dot", o->dot, "Print Graphviz DOT");
  cmd->add_flag("--json", o->json, "Print the canonical JSON with its hash")->excludes(dot);
  return {cmd, [o] {
            const GraphRules rules;
            KernelGraph g = load_mugraph(o->path, rules);
            const bool canonical = canonicalize(g, rules);
            const std::string hash = fmt::format("{:016x}", structural_hash(g));
            if (o->dot) {
              fmt::print("{}", to_dot(g));
            } else if (o->json) {
              const nlohmann::json j = {{"hash", hash}, {"canonical", canonical}, {"graph", to_json(g)}};
              fmt::print("{}\n", j.dump(2));
            } else {
              fmt::print("μGraph {}{}\n{}", hash, canonical ? "" : "  (no canonical order exists)", to_text(g));
            }
            return 0;
          }};
}

}  // namespace ugs::cli
