#pragma once
// Each verb of the command line registers its subcommand and returns what to run once parsed.
#include <functional>

#include <CLI/CLI.hpp>

namespace ugs::cli {

// Exit status of a run that failed for a reason outside its input (docs/design.md §9's 0-3 are the others).
inline constexpr int kFailed = 4;

struct Verb {
  CLI::App* cmd;
  std::function<int()> run;  // exit status
};

Verb add_programs(CLI::App& app);
Verb add_show(CLI::App& app);
Verb add_verify(CLI::App& app);
Verb add_cost(CLI::App& app);
Verb add_search(CLI::App& app);

}  // namespace ugs::cli
