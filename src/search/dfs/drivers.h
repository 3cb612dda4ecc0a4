#pragma once
// The depth-first drivers run_search dispatches to. Each takes the engine, the root and one worker
// per thread.
#include <deque>
#include <functional>
#include <vector>

#include "ugs/search/distributed/comm.h"
#include "ugs/search/engine.h"
#include "ugs/search/search.h"

namespace ugs::search_detail {

void run_dfs(const Engine& engine, const State& root, std::deque<Worker>& workers);
// Returns the number of middle states dealt.
uint64_t run_dfs_static(const Engine& engine, const State& root, Worker& collector, std::deque<Worker>& workers);
void run_dfs_omp(const Engine& engine, const State& root, int task_depth, std::deque<Worker>& workers);
// Every rank calls it. Rank 0 returns the number of middle states it dealt; `searched` is this rank's.
uint64_t run_dfs_mpi(const Engine& engine, const State& root, Worker& collector, std::deque<Worker>& workers,
                     Comm& comm, uint64_t& searched);

// The serial part of Mirage's 2024 scheme (dfs-static, dfs-mpi): depth-first over kernel-level states,
// stopping at every state whose step just opened a block graph (a middle state), which goes to
// `middle` instead of being expanded.
void collect_middle_states(const Engine& engine, const State& state, Worker& worker, int depth,
                           const std::function<void(State&&)>& middle);

}  // namespace ugs::search_detail
