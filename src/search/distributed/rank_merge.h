#pragma once
// A distributed run's result on rank 0 (docs/design.md §6 with ranks): every rank's μGraphs listed once,
// counters and z3 statistics summed, bfs levels summed by depth, one RankStats row per rank.
#include "ugs/cost/gpu.h"
#include "ugs/search/distributed/comm.h"
#include "ugs/search/search.h"

namespace ugs::search_detail {

// Collective. `result` is this rank's result; on rank 0 it becomes the merged one (the others keep theirs).
// `within`: list_found's cut (--objective best), taken over every rank's μGraphs.
void merge_ranks(Comm& comm, const GpuSpec& gpu, double within, const RankStats& me, SearchResult& result);

}  // namespace ugs::search_detail
