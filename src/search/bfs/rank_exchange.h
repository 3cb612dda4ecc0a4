#pragma once
// What the ranks of a distributed breadth-first search share, each a collective; in one process each
// passes through (sync only reads the local frontier). The frontier is partitioned by subtree:
// every rank expands its shard of the current depth, and in every batch:
//   sync       the levels' sizes and bytes summed over ranks (and the stop and found flags), with
//              each rank's share, so that every rank takes the same schedule and routing decisions:
//              levels, and chunks under --memory-limit or the probe's dive, stay in step (a rank
//              whose shard of the depth is empty expands empty batches);
//   share_z3   the batch's queries that neither the cache nor the structural stage answers, gathered
//              from every rank, deduplicated, solved round-robin over the ranks, answers to all;
//              with them every rank's cost limit (--objective best), each rank taking the lowest;
//   route      while the depth is narrow or unevenly shared (spreads), each child to the rank that
//              owns its key (all-to-all), encoded whole with its key; an arrival gets its expressions
//              rebuilt in this pool and becomes a base of the next depth. Otherwise the children
//              stay with their parent's rank: a rank's states stay one tree, walked by its cursors
//              step by step, its fingerprints sharing their prefixes, where a routed state is a base
//              decoded whole, several times the bytes of a node, evaluated from its inputs.
// Function dedup stays per rank: a rank keeps the cheapest state of each function it generated, so
// the ranks together keep a superset of the states one process keeps (the same best cost).
// Checkpoints: each rank writes its part of a generation, and rank 0 commits it once all have; a
// resume needs the same number of ranks.
#include <cstdint>
#include <vector>

#include "search/bfs/batch.h"
#include "search/bfs/cursor.h"
#include "search/bfs/level_store.h"
#include "search/bfs/schedule.h"
#include "search/bfs/state_codec.h"
#include "search/bfs/team.h"
#include "search/distributed/wire.h"
#include "ugs/search/bfs/checkpoint.h"
#include "ugs/search/distributed/comm.h"
#include "ugs/search/engine.h"
#include "ugs/search/search.h"

namespace ugs::search_detail {

// Whether the children of a depth's batch go to the ranks that own their keys: while the depth holds
// fewer than kSpreadBelow states a rank (the root's children start on rank 0), or one rank holds
// more than kImbalance times its even share (subtrees grow unevenly). `states`: the depth's pending
// states over all ranks; `largest`: the most one rank holds.
bool spreads_children(uint64_t states, uint64_t largest, int ranks);
inline constexpr uint64_t kSpreadBelow = 256;
inline constexpr double kImbalance = 1.25;

class RankExchange {
 public:
  // `ranks`: null in one process.
  RankExchange(Comm* ranks, const Engine& engine, Team& team, Worker& collector, SearchResult& result);
  bool distributed() const { return ranks_ != nullptr; }
  // Whether `mine` holds on some rank (a collective with ranks).
  bool any(bool mine);
  int rank() const { return ranks_ ? ranks_->rank() : 0; }
  int size() const { return ranks_ ? ranks_->size() : 1; }

  // The frontier as every rank sees it, into `view` (`found`: this rank has confirmed a μGraph);
  // false when any rank stops.
  bool sync(const LevelStore& store, bool found, FrontierView& view);
  // The queries only z3 answers: each distinct one solved once over all ranks, learned by all; and the
  // ranks' cost limits, the lowest taken by all.
  void share_z3(const std::vector<expr::ExprId>& queries);
  // Whether a batch of `depth` sends its children to the ranks that own their keys
  // (spreads_children, the same answer on every rank: it reads the synced view).
  bool spreads(const FrontierView& view, int depth) const;
  // With `spread`, the batch's children that other ranks own leave (their keep cleared) for this
  // rank's outbox, encoded; returns how many, and adds their bytes to *bytes.
  uint64_t route_out(Batch& batch, const LevelStore& store, int depth, bool spread, uint64_t* bytes);
  // And those this rank owns arrive, into the threads' open slabs, unless an equal state is already
  // among the batch's children; the batch's bytes exchanged are counted either way.
  void route_in(const Batch& batch, LevelStore& store, bool spread);

  // Every rank writes its part of the checkpoint, then the generation is committed.
  void store(CheckpointStore& checkpoints, const Checkpoint& checkpoint, CheckpointSource& states);
  Checkpoint load(const CheckpointStore& checkpoints, const std::string& run_key, const GraphRules& rules);

 private:
  void arrive(const Batch& batch, LevelStore& store);  // route_in's exchange, when it spreads
  struct alignas(64) Scratch {
    State child;
    Frontier buffer;  // a child being encoded
  };
  Comm* ranks_;
  const Engine& engine_;
  Team& team_;
  Worker& collector_;
  SearchResult& result_;
  uint64_t sent_before_ = 0;         // the rank's bytes sent when the batch began
  std::vector<WireWriter> outbox_;   // per rank: children it owns
  uint64_t generation_ = 0;          // checkpoint generations written
  Cursor cursor_;                    // route_out's walk to a child's parent
  std::vector<Scratch> scratch_;     // per thread
};

}  // namespace ugs::search_detail
