#pragma once
// The results file of docs/design.md §9: run, program, config, μGraphs and statistics; the one thing the
// experiment drivers and plots read.
#include <nlohmann/json.hpp>

#include "ugs/io/program.h"
#include "ugs/search/search.h"

namespace ugs {

inline constexpr const char* kVersion = "0.1.0";

nlohmann::json results_json(const Program& program, const SearchConfig& cfg, const RunOptions& opt,
                            const SearchResult& result);

}  // namespace ugs
