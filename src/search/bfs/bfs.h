#pragma once
// The level-synchronous search (docs/design.md §5 `bfs`), the project's design; docs/bfs.md tells it
// whole.
// The frontier is a tree of steps (state_tree.h: a state is its parent and one step) kept by depth in
// a LevelStore, which each thread walks with a cursor (cursor.h). The Schedule picks the depth to
// expand and the batch's size (under a memory limit, depth-first over chunks). A batch goes through
// these phases, each over the whole batch:
//   expand    every state visited and its steps generated (Expander; the threads take chunks from
//             stealing ranges); its completions fingerprinted at once or handed to the feed thread,
//             matches confirmed (Completions);
//   exprs     the queries the oracle's cache did not know, deduplicated, in one oracle batch (with
//             ranks, shared: RankExchange);
//   children  the kept steps as nodes, deduplicated (Deduplicator), routed to their ranks, into the
//             next depth's slabs;
// and the children form the next level. A checkpoint is written after every level. The stop (time
// limit) is obeyed between a batch's states and confirmations; the cut batch stays pending.
#include <deque>
#include <string>

#include "search/monitor.h"
#include "ugs/search/search.h"

namespace ugs::search_detail {

// Found μGraphs go to the workers; `collector` holds the batch-level counters and what a resumed
// checkpoint brings. Fills the result's levels, peak_frontier_mib, chunks and carried, and carries a
// resumed run's expr and wall_s (run_search adds this run's).
void run_bfs(const Engine& engine, const SearchConfig& cfg, const RunOptions& options, const std::string& run_key,
             const State& root, std::deque<Worker>& workers, Worker& collector, SearchResult& result,
             LevelProgress& progress);

}  // namespace ugs::search_detail
