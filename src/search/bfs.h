#pragma once
// The level-synchronous search (DESIGN §5 `bfs`), the project's design. A level of states is expanded
// in batches; each batch goes through five phases, each a bulk operation over the whole batch:
//   verify    the batch's complete μGraphs, fingerprinted in one backend call (match → confirmation);
//   generate  the generator's steps from every state (OpenMP, per-thread buffers, no lock);
//   exprs     the batch's abstract-expression queries, deduplicated, in one oracle batch;
//   children  the surviving steps applied, deduplicated (structurally, or by function), encoded;
// and the children form the next level. Without a memory limit every level is finished before the
// next starts; when the frontier passes the limit, the search descends into the newest level first
// (depth-first over chunks) until it fits again. A checkpoint is written after every level.
#include <deque>
#include <string>

#include "monitor.h"
#include "ugs/search/search.h"

namespace ugs::search_detail {

// Found μGraphs go to the workers; `collector` holds the batch-level counters and what a resumed
// checkpoint brings. Fills r.levels, r.peak_frontier_mib, r.chunks, and carries a resumed run's
// r.expr and r.wall_s (run_search adds this run's).
void run_bfs(const Engine& e, const SearchConfig& cfg, const RunOptions& opt, const std::string& run_key,
             const State& root, std::deque<Worker>& workers, Worker& collector, SearchResult& r,
             LevelProgress& progress);

}  // namespace ugs::search_detail
