#pragma once
// The expansion of one batch. Each thread's cursor walks to each state of its chunk (a step back and a
// step forward from the previous one, mostly) and, while the state is hot in cache, generates its
// steps: a step whose query the oracle's cache knows (nearly all) is settled at once, the others wait
// for the batch's one oracle call. A child is its parent and its step: nothing is encoded. The states
// with completions go through Completions first; a verified one is not expanded.
#include <atomic>
#include <cstdint>
#include <deque>
#include <vector>

#include "search/bfs/batch.h"
#include "search/bfs/completions.h"
#include "search/bfs/cursor.h"
#include "search/bfs/level_store.h"
#include "search/bfs/team.h"
#include "ugs/search/engine.h"
#include "ugs/search/search.h"

namespace ugs::search_detail {

class RankExchange;

class Expander {
 public:
  // `stop`: null where a batch must run to its end (ranks). `keyed`: whether the children's keys are read
  // (Deduplicator::keyed); without them a child is its node alone.
  Expander(const Engine& engine, Dedup dedup, bool keyed, std::deque<Worker>& workers, Worker& collector,
           Team& team, Completions& completions, const std::atomic<bool>* stop);

  Batch& batch() { return batch_; }
  const Batch& batch() const { return batch_; }
  // The next batch: the last n pending states of the current depth, then the states carried from the
  // batch before (Completions::carry). It drains (carries nothing on) when `drain` says so, when
  // completions are not pipelined, or when it takes the depth's last states.
  void begin(const LevelStore& store, int depth, size_t n, const std::vector<NodeId>& carried, bool drain);

  // The phases, in order; each may be cut short by the stop.
  // Every own state visited: completions handed to Completions or verified at once, steps generated.
  void expand_chunks(LevelStore& store);
  // The carried states and, when the batch drains, its own with completions: each counts as a state
  // now, and those none of whose completions passed are expanded.
  void expand_deferred(const LevelStore& store);
  // The queries the cache did not know, in one oracle call that answers each distinct one once (with
  // ranks, those only z3 can answer once over all ranks); the children they wait on kept or not.
  void settle_misses(RankExchange& exchange);
  // The children that survived the oracle, dedup and routing into level depth + 1, after the nodes
  // kept before: most promising first (promise.h), then in the generator's order, so the level's
  // order does not depend on timing. The threads copy them in parallel, a slab each (LevelStore).
  void keep_children(LevelStore& store);

  // This batch's steps, and the queries the cache answered inline.
  uint64_t candidates() const;
  uint64_t cache_hits() const;

 private:
  // A thread's scratch memory, reused by every batch.
  struct alignas(64) Scratch {
    Cursor cursor;  // on the batch state being expanded
    State child;  // function dedup: a child, applied to a copy of its parent
    std::vector<Step> steps;
    uint8_t promise = 0;  // the state under the cursor's (promise.h)
    uint64_t candidates = 0, cache_hits = 0;  // this batch's
  };
  static constexpr size_t kPrefetch = 8;  // nodes ahead of the cursor

  void visit(const LevelStore& store, uint32_t i, int thread);  // moves the thread's cursor to batch state i
  // State i, under the thread's cursor; `reach` (the cost bound's for it) not All: no children.
  void generate(uint32_t i, Chunk& chunk, int thread, CostBound::Reach reach);
  // `keep`: 0 while the oracle has still to answer its query.
  void make_child(uint32_t i, const Step& step, Chunk& chunk, int thread, uint8_t keep = 1);

  const Engine& engine_;
  const Dedup dedup_;
  const bool keyed_;
  std::deque<Worker>& workers_;
  Worker& collector_;
  Team& team_;
  Completions& completions_;
  const std::atomic<bool>* stop_;
  int depth_ = 0;
  Batch batch_;
  std::vector<Scratch> scratch_;
  std::vector<expr::ExprId> queries_;  // reused between batches
  std::vector<uint8_t> answers_;
  std::vector<std::pair<uint32_t, uint32_t>> order_;  // keep_children: (chunk, child) in the level's order
};

}  // namespace ugs::search_detail
