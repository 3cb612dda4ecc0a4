#include "search/bfs/expander.h"

#include <algorithm>
#include <array>
#include <optional>

#include "search/bfs/promise.h"
#include "search/bfs/rank_exchange.h"

namespace ugs::search_detail {

Expander::Expander(const Engine& engine, Dedup dedup, bool keyed, std::deque<Worker>& workers, Worker& collector,
                   Team& team, Completions& completions, const std::atomic<bool>* stop)
    : engine_(engine), dedup_(dedup), keyed_(keyed), workers_(workers), collector_(collector), team_(team),
      completions_(completions), stop_(stop), scratch_(workers.size()) {}

void Expander::begin(const LevelStore& store, int depth, size_t n, const std::vector<NodeId>& carried, bool drain) {
  depth_ = depth;
  const Level& level = store.level(depth);
  batch_.nodes.clear();
  level.peek_front(n, batch_.nodes);
  batch_.lay_out(carried, team_.size(), drain || !completions_.pipelined() || level.pending() == batch_.nodes.size());
  completions_.begin(batch_);
  for (Scratch& s : scratch_) s.candidates = s.cache_hits = 0;
}

uint64_t Expander::candidates() const {
  uint64_t n = 0;
  for (const Scratch& s : scratch_) n += s.candidates;
  return n;
}

uint64_t Expander::cache_hits() const {
  uint64_t n = 0;
  for (const Scratch& s : scratch_) n += s.cache_hits;
  return n;
}

void Expander::visit(const LevelStore& store, uint32_t i, int thread) {
  // The level is read from memory: a node two strides ahead, and the parent of the one a stride ahead.
  const Level& level = store.level(depth_);
  const size_t n = batch_.size();
  if (i + 2 * kPrefetch < n) __builtin_prefetch(&level.node(batch_.nodes[i + 2 * kPrefetch]));
  if (i + kPrefetch < n && depth_ > 0) {
    const uint32_t parent = level.node(batch_.nodes[i + kPrefetch]).parent;
    if (parent != kBase) __builtin_prefetch(&store.level(depth_ - 1).node(parent));
  }
  Cursor& cursor = scratch_[thread].cursor;
  cursor.move_to(store.levels(), depth_, batch_.nodes[i], engine_.gen, store.tree());
  if (keyed_) batch_.keys[i] = cursor.key();
}

void Expander::expand_chunks(LevelStore& store) {
  const auto start = Clock::now();
  team_.each_chunk(&IdleTimes::expand, batch_.own_chunks, [&](size_t c, int thread) {
    store.ready_next_slab(thread);
    Chunk& chunk = batch_.chunks[c];
    chunk.clear();
    Fed& fed = completions_.fed(c);
    fed.clear();
    Worker& worker = workers_[thread];
    for (auto [i, end] = batch_.states_of(c); i < end && !raised(stop_); ++i) {
      worker.count_state();
      visit(store, static_cast<uint32_t>(i), thread);
      const State& state = scratch_[thread].cursor.state();
      const CostBound::Reach reach = engine_.bound.reach(state, worker.prices);
      if (reach == CostBound::Reach::None) {  // its completions too
        ++worker.counters.states;
        ++worker.counters.pruned.cost;
        continue;
      }
      const size_t before = fed.completions.size();
      // A replayed opening has no children: the closed states below it are terminal (Generator::replay).
      const bool replayed = engine_.gen.replays(state);
      std::vector<uint32_t>& groups = worker.completion_groups;
      groups.clear();
      if (!replayed)
        engine_.gen.completions(state, fed.completions);
      else if (reach == CostBound::Reach::All)
        engine_.gen.replay(state, fed.completions, groups);
      const bool completes = fed.completions.size() > before;  // verified first: a verified μGraph is not extended
      if (completes && completions_.batched()) {  // fed; a state once finished (expand_deferred)
        fed.owners.resize(fed.completions.size(), static_cast<uint32_t>(i));
        uint32_t group = 0;
        for (const uint32_t group_end : groups) fed.groups.resize(group_end, group++);  // ends in fed.completions
        fed.groups.resize(fed.completions.size(), 0);
        chunk.deferred.push_back(static_cast<uint32_t>(i));
        continue;
      }
      ++worker.counters.states;
      if (completes) {  // here, on this thread
        const std::span<const KernelGraph> done = std::span(fed.completions).subspan(before);
        bool verified = false;
        if (replayed) {
          for (uint32_t& group_end : groups) group_end -= static_cast<uint32_t>(before);
          verified = verify_completion_groups(engine_, done, groups, worker, stop_, worker.fingerprints.get());
        } else {
          verified = verify_completions(engine_, done, worker, stop_, worker.fingerprints.get());
        }
        fed.completions.resize(before);
        if (verified || raised(stop_)) continue;
      }
      if (replayed) {
        if (reach != CostBound::Reach::All) ++worker.counters.pruned.cost;
        continue;
      }
      generate(static_cast<uint32_t>(i), chunk, thread, reach);
    }
    completions_.hand_in(c);
  });
  collector_.counters.phase_s.expand += seconds_since(start);
}

// The steps from state i (under the thread's cursor); those the cache settles become children at once.
void Expander::generate(uint32_t i, Chunk& chunk, int thread, CostBound::Reach reach) {
  Scratch& s = scratch_[thread];
  Worker& worker = workers_[thread];
  if (reach != CostBound::Reach::All) {
    ++worker.counters.pruned.cost;  // nothing below it could be kept
    return;
  }
  s.steps.clear();
  s.promise = state_promise(engine_.gen.pool(), s.cursor.state());
  const BoundedOpenings bounded(engine_.bound, worker.prices);
  engine_.gen.candidates(s.cursor.state(), s.steps, worker.counters.pruned, &bounded);
  count_symbolic(s.cursor.state(), s.steps, worker.counters);
  worker.counters.candidates += s.steps.size();
  s.candidates += s.steps.size();
  for (const Step& step : s.steps) {
    if (step.query == kNoQuery) {
      make_child(i, step, chunk, thread);
      continue;
    }
    const std::optional<bool> known = engine_.oracle.cached(step.query);
    if (!known) {  // made now, in the generator's order, and kept if the answer says so
      chunk.misses.push_back({static_cast<uint32_t>(chunk.children.size()), step.query});
      make_child(i, step, chunk, thread, 0);
    } else {
      ++s.cache_hits;
      if (*known)
        make_child(i, step, chunk, thread);
      else
        ++worker.counters.pruned.expr;
    }
  }
}

// The child of batch state i by `step`: its parent, step and (when keyed) key. Function dedup also
// needs the graph of a child outside any block graph, applied to a copy of the parent (the thread's
// cursor stands on it).
void Expander::make_child(uint32_t i, const Step& step, Chunk& chunk, int thread, uint8_t keep) {
  const bool kernel_level = step.kind == Step::Kind::CloseBlock || step.kind == Step::Kind::KernelOp;
  if (dedup_ == Dedup::Function && kernel_level) {
    State& child = scratch_[thread].child = scratch_[thread].cursor.state();
    engine_.gen.apply_in_place(child, step);
    chunk.kernel_level.push_back(child.kernel);
    chunk.kernel_level_child.push_back(static_cast<uint32_t>(chunk.children.size()));
  }
  // The chunk's states mostly share their kernel-level tensors, so their openings repeat: stored once.
  const bool whole_step = stored_whole(step);
  const uint64_t hash = whole_step || keyed_ ? step_hash(step) : 0;
  const uint32_t whole =
      whole_step ? store_whole(chunk.whole_steps, chunk.whole_hashes, chunk.whole_slots, step, hash) : 0;
  chunk.children.push_back({batch_.nodes[i], step.query, pack_step(step, whole)});
  if (keyed_) chunk.keys.push_back(child_key(batch_.keys[i], hash));
  chunk.promise.push_back(std::max(scratch_[thread].promise, expr_promise(engine_.gen.pool(), step.query)));
  chunk.keep.push_back(keep);  // here, on the chunk's thread, rather than serially after the batch
}

void Expander::expand_deferred(const LevelStore& store) {
  const size_t first = batch_.draining ? 0 : batch_.own_chunks;
  bool any = false;
  for (size_t c = first; c < batch_.chunk_count && !any; ++c) any = !batch_.chunks[c].deferred.empty();
  if (!any) return;
  const auto start = Clock::now();
  team_.each_chunk(&IdleTimes::deferred, batch_.chunk_count - first, [&](size_t k, int thread) {
    Chunk& chunk = batch_.chunks[first + k];
    Worker& worker = workers_[thread];
    for (uint32_t i : chunk.deferred) {
      if (raised(stop_)) break;
      ++worker.counters.states;
      if (completions_.verified(i)) continue;
      visit(store, i, thread);
      if (engine_.gen.replays(scratch_[thread].cursor.state())) continue;  // no children: replayed
      generate(i, chunk, thread, engine_.bound.reach(scratch_[thread].cursor.state(), worker.prices));
    }
  });
  collector_.counters.phase_s.expand += seconds_since(start);
}

void Expander::settle_misses(RankExchange& exchange) {
  const auto start = Clock::now();
  queries_.clear();
  for (size_t c = 0; c < batch_.chunk_count; ++c)
    for (const Pending& p : batch_.chunks[c].misses) queries_.push_back(p.query);
  exchange.share_z3(queries_);
  engine_.oracle.is_subexpr_batch(queries_, answers_, stop_);
  size_t answer = 0;
  for (size_t c = 0; c < batch_.chunk_count; ++c)
    for (const Pending& p : batch_.chunks[c].misses) {
      if (answers_[answer++])
        batch_.chunks[c].keep[p.child] = 1;
      else
        ++collector_.counters.pruned.expr;
    }
  collector_.counters.phase_s.expr += seconds_since(start);
}

// A stable counting sort of the kept children by promise, most promising first: within a promise
// they stay in chunk order, the generator's.
void Expander::keep_children(LevelStore& store) {
  const auto bucket = [](const Chunk& chunk, size_t i) { return 255 - chunk.promise[i]; };
  std::array<size_t, 257> start{};
  for (size_t c = 0; c < batch_.chunk_count; ++c) {
    const Chunk& chunk = batch_.chunks[c];
    for (size_t i = 0; i < chunk.children.size(); ++i)
      if (chunk.keep[i]) ++start[bucket(chunk, i) + 1];
  }
  for (size_t p = 1; p < start.size(); ++p) start[p] += start[p - 1];
  order_.resize(start[256]);
  for (size_t c = 0; c < batch_.chunk_count; ++c) {
    const Chunk& chunk = batch_.chunks[c];
    for (size_t i = 0; i < chunk.children.size(); ++i)
      if (chunk.keep[i]) order_[start[bucket(chunk, i)]++] = {static_cast<uint32_t>(c), static_cast<uint32_t>(i)};
  }
  const std::vector<LevelStore::Piece>& pieces = store.plan_in_order(order_.size());
  team_.each(&IdleTimes::keep, pieces.size(), [&](size_t p, int) {
    const LevelStore::Piece& piece = pieces[p];
    for (size_t k = piece.from; k < piece.to; ++k) {
      const Chunk& chunk = batch_.chunks[order_[k].first];
      piece.slab->push_copy(chunk.children[order_[k].second], chunk.whole_steps, chunk.whole_hashes);
    }
  }, /*dynamic=*/true);
  store.join_in_order();
}

}  // namespace ugs::search_detail
