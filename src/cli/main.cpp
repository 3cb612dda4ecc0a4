// ugsearch <verb> ...: exit 0 success, 1 a negative answer, 2 bad input or usage (docs/design.md §9), 3 the time
// limit, 4 a failure the input did not cause (a device error, memory exhausted): one line, not an abort.
#include <fmt/format.h>

#include <cstdio>
#include <new>
#include <vector>

#include "ugs/util/error.h"
#include "verbs.h"

int main(int argc, char** argv) {
  CLI::App app{"ugsearch: superoptimizer search for μGraphs of tensor programs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ugsearch 0.1.0");
  const std::vector<ugs::cli::Verb> verbs = {ugs::cli::add_programs(app), ugs::cli::add_show(app),
                                             ugs::cli::add_verify(app),
                                             ugs::cli::add_cost(app),
                                             ugs::cli::add_search(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    for (const auto& v : verbs)
      if (v.cmd->parsed()) return v.run();
  } catch (const ugs::InputError& e) {
    fmt::print(stderr, "ugsearch: {}\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "ugsearch: failed: out of memory; use fewer threads, a smaller program, or bfs --memory-limit\n");
    return ugs::cli::kFailed;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ugsearch: failed: {}\n", e.what());
    return ugs::cli::kFailed;
  }
  return 2;
}
