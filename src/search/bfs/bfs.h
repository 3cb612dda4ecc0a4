#pragma once
// The level-synchronous search (DESIGN §5 `bfs`), the project's design. The frontier is a tree of
// steps (state_tree.h: a state is its parent and one step), which each thread walks with a cursor
// (cursor.h). A level is expanded in batches; each batch goes through these phases, each over the
// whole batch:
//   generate  every state's steps (OpenMP over chunks in guided runs, per-thread buffers, no lock);
//             a state's completions fingerprinted at once on its thread through the backend's
//             context (cpu, _small programs), or handed chunk by chunk to a feed thread whose
//             backend calls run while the batch expands (cuda, and cpu on a full-size program whose
//             candidates its threads then share; fingerprint_feed.h); matches confirmed; fed
//             states are finished by the next batch of their level, so that their calls overlap
//             its expansion too (bfs_impl.h, pipelining);
//   exprs     the queries the oracle's cache did not know, deduplicated, in one oracle batch;
//   children  the kept steps as nodes, deduplicated (structurally, or by function), into the next
//             level's slabs;
// and the children form the next level. Without a memory limit every level is finished before the
// next starts; when the frontier passes the limit, the search descends into the newest level first
// (depth-first over chunks) until it fits again. A checkpoint is written after every level. The stop
// (time limit) is obeyed between a batch's states and confirmations; the cut batch stays pending.
#include <deque>
#include <string>

#include "search/monitor.h"
#include "ugs/search/search.h"

namespace ugs::search_detail {

// Found μGraphs go to the workers; `collector` holds the batch-level counters and what a resumed
// checkpoint brings. Fills r.levels, r.peak_frontier_mib, r.chunks, and carries a resumed run's
// r.expr and r.wall_s (run_search adds this run's).
void run_bfs(const Engine& e, const SearchConfig& cfg, const RunOptions& opt, const std::string& run_key,
             const State& root, std::deque<Worker>& workers, Worker& collector, SearchResult& r,
             LevelProgress& progress);

}  // namespace ugs::search_detail
