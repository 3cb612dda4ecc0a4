#include "search/bfs/expander.h"

#include <algorithm>
#include <optional>

#include "search/bfs/rank_exchange.h"

namespace ugs::search_detail {

Expander::Expander(const Engine& engine, Dedup dedup, std::deque<Worker>& workers, Worker& collector, Team& team,
                   Completions& completions, const std::atomic<bool>* stop)
    : engine_(engine), dedup_(dedup), workers_(workers), collector_(collector), team_(team),
      completions_(completions), stop_(stop), scratch_(workers.size()) {
  for (Scratch& s : scratch_) s.fingerprints = engine.verifier.backend().make_context();
}

void Expander::begin(const LevelStore& store, int depth, size_t n, const std::vector<NodeId>& carried, bool drain) {
  depth_ = depth;
  const Level& level = store.level(depth);
  batch_.nodes.clear();
  level.peek_back(n, batch_.nodes);
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
  batch_.keys[i] = cursor.key();
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
      worker.progress.fetch_add(1, std::memory_order_relaxed);
      visit(store, static_cast<uint32_t>(i), thread);
      const State& state = scratch_[thread].cursor.state();
      const size_t before = fed.completions.size();
      engine_.gen.completions(state, fed.completions);
      const bool completes = fed.completions.size() > before;  // verified first: a verified μGraph is not extended
      if (completes && completions_.batched()) {  // fed; a state once finished (expand_deferred)
        fed.owners.resize(fed.completions.size(), static_cast<uint32_t>(i));
        chunk.deferred.push_back(static_cast<uint32_t>(i));
        continue;
      }
      ++worker.counters.states;
      if (completes) {
        const bool verified = verify_completions(engine_, std::span(fed.completions).subspan(before), worker, stop_,
                                                 scratch_[thread].fingerprints.get());  // here, on this thread
        fed.completions.resize(before);
        if (verified || raised(stop_)) continue;
      }
      generate(static_cast<uint32_t>(i), chunk, thread);
    }
    completions_.hand_in(c);
  });
  collector_.counters.phase_s.expand += seconds_since(start);
}

// The steps from state i (under the thread's cursor); those the cache settles become children at once.
void Expander::generate(uint32_t i, Chunk& chunk, int thread) {
  Scratch& s = scratch_[thread];
  Worker& worker = workers_[thread];
  s.steps.clear();
  engine_.gen.candidates(s.cursor.state(), s.steps, worker.counters.pruned);
  count_symbolic(s.cursor.state(), s.steps, worker.counters);
  worker.counters.candidates += s.steps.size();
  s.candidates += s.steps.size();
  for (const Step& step : s.steps) {
    if (step.query == kNoQuery) {
      make_child(i, step, chunk, thread);
      continue;
    }
    const std::optional<bool> known = engine_.oracle.cached(step.query);
    if (!known) {
      chunk.misses.push_back({i, step});
    } else {
      ++s.cache_hits;
      if (*known)
        make_child(i, step, chunk, thread);
      else
        ++worker.counters.pruned.expr;
    }
  }
}

// The child of batch state i by `step`: its parent, step and key. Function dedup also needs the graph
// of a child outside any block graph, applied to a copy of the parent (the thread's cursor stands on it).
void Expander::make_child(uint32_t i, const Step& step, Chunk& chunk, int thread) {
  const bool kernel_level = step.kind == Step::Kind::CloseBlock || step.kind == Step::Kind::KernelOp;
  if (dedup_ == Dedup::Function && kernel_level) {
    State& child = scratch_[thread].child = scratch_[thread].cursor.state();
    engine_.gen.apply_in_place(child, step);
    chunk.kernel_level.push_back(child.kernel);
    chunk.kernel_level_child.push_back(static_cast<uint32_t>(chunk.children.size()));
  }
  // The chunk's states mostly share their kernel-level tensors, so their openings repeat: stored once.
  const uint32_t whole = stored_whole(step) ? store_whole(chunk.whole_steps, chunk.whole_slots, step) : 0;
  chunk.children.push_back({batch_.nodes[i], step.query, pack_step(step, whole)});
  chunk.keys.push_back(child_key(batch_.keys[i], step_hash(step)));
  chunk.keep.push_back(1);  // here, on the chunk's thread, rather than serially after the batch
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
      generate(i, chunk, thread);
    }
  });
  collector_.counters.phase_s.expand += seconds_since(start);
}

void Expander::settle_misses(const LevelStore& store, RankExchange& exchange) {
  auto start = Clock::now();
  queries_.clear();
  for (size_t c = 0; c < batch_.chunk_count; ++c)
    for (const Pending& p : batch_.chunks[c].misses) queries_.push_back(p.step.query);
  exchange.share_z3(queries_);
  engine_.oracle.is_subexpr_batch(queries_, answers_, stop_);
  collector_.counters.phase_s.expr += seconds_since(start);
  if (queries_.empty()) return;

  start = Clock::now();
  std::vector<size_t> first(batch_.chunk_count + 1, 0);  // chunk c's answers start at first[c]
  for (size_t c = 0; c < batch_.chunk_count; ++c) first[c + 1] = first[c] + batch_.chunks[c].misses.size();
  team_.each_chunk(&IdleTimes::misses, batch_.chunk_count, [&](size_t c, int thread) {
    Chunk& chunk = batch_.chunks[c];
    for (size_t k = 0; k < chunk.misses.size(); ++k) {
      const Pending& p = chunk.misses[k];
      if (!answers_[first[c] + k]) {
        ++workers_[thread].counters.pruned.expr;
        continue;
      }
      if (dedup_ == Dedup::Function) visit(store, p.parent, thread);
      make_child(p.parent, p.step, chunk, thread);
    }
  });
  collector_.counters.phase_s.expand += seconds_since(start);
}

void Expander::keep_children(LevelStore& store) {
  const size_t n = batch_.chunk_count;
  first_child_.resize(n + 1);
  first_child_[0] = 0;
  for (size_t c = 0; c < n; ++c) first_child_[c + 1] = first_child_[c] + batch_.chunks[c].children.size();
  const size_t total = first_child_[n];
  const int threads = team_.size();
  team_.each_thread(&IdleTimes::keep, [&](int thread) {
    const size_t to = total * (thread + 1) / threads;
    size_t from = total * thread / threads;
    size_t c = static_cast<size_t>(std::upper_bound(first_child_.begin(), first_child_.end(), from) -
                                   first_child_.begin()) - 1;
    for (; from < to; ++c) {
      const Chunk& chunk = batch_.chunks[c];
      const size_t end = std::min(first_child_[c + 1], to) - first_child_[c];
      for (size_t i = from - first_child_[c]; i < end; ++i)
        if (chunk.keep[i]) store.keep_node(thread, chunk.children[i], chunk.whole_steps);
      from = first_child_[c] + end;
    }
  });
}

}  // namespace ugs::search_detail
