#pragma once
// What the in-process search tests share: a built-in program's preset narrowed to a test's space,
// and the hashes of a search's μGraphs.
#include <nlohmann/json.hpp>
#include <set>

#include "ugs/io/program.h"
#include "ugs/io/spaces.h"
#include "ugs/search/generator/config.h"
#include "ugs/search/search.h"

namespace ugs::test {

// The program's preset narrowed by `overrides`, resolved.
inline SearchConfig config_for(const Program& p, const nlohmann::json& overrides = nlohmann::json::object()) {
  SearchConfig cfg;
  if (!p.search_preset.is_null()) apply_config_json(cfg, p.search_preset, p.name);
  apply_config_json(cfg, overrides, "test");
  resolve(cfg, p.graph);
  return cfg;
}

// Mirage's space (--space mirage) for `p`, resolved.
inline SearchConfig mirage_config(const Program& p) {
  SearchConfig cfg = space_config(p, Space::Mirage);
  resolve(cfg, p.graph);
  return cfg;
}

// A search of `p` under `cfg` with one strategy and thread count, the other options their defaults.
inline SearchResult search(const Program& p, const SearchConfig& cfg, Strategy s, int threads) {
  RunOptions opt;
  opt.strategy = s;
  opt.threads = threads;
  return run_search(p.graph, cfg, opt);
}

inline std::set<uint64_t> hashes(const SearchResult& result) {
  std::set<uint64_t> h;
  for (const FoundGraph& f : result.mugraphs) h.insert(f.hash);
  return h;
}

}  // namespace ugs::test
