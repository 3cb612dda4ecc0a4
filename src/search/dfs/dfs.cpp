// The per-state step shared by the depth-first drivers, and plain depth-first search (`dfs`).
#include <optional>

#include "search/dfs/drivers.h"
#include "ugs/search/engine.h"

namespace ugs {

Counters& Counters::operator+=(const Counters& o) {
  states += o.states;
  candidates += o.candidates;
  fingerprint_evals += o.fingerprint_evals;
  fingerprint_passes += o.fingerprint_passes;
  verified += o.verified;
  confirm_failures += o.confirm_failures;
  pruned += o.pruned;
  phase_s += o.phase_s;
  busy_s += o.busy_s;
  symbolic_states += o.symbolic_states;
  instantiations += o.instantiations;
  return *this;
}

void count_symbolic(const State& state, std::span<const Step> children, Counters& counters) {
  if (!state.open || !state.family.symbolic()) return;
  ++counters.symbolic_states;
  for (const Step& st : children) counters.instantiations += st.kind == Step::Kind::CloseBlock;
}

std::vector<Step>& Worker::steps_at(int depth) {
  while (static_cast<int>(by_depth.size()) <= depth) by_depth.emplace_back();
  return by_depth[depth];
}

// Phases switch to fingerprint and verify and back to the one running when called.
bool verify_completions(const Engine& engine, std::span<const KernelGraph> completions, Worker& worker,
                        const std::atomic<bool>* stop, FingerprintContext* ctx) {
  // --objective best: the completions share their kernel ops (one state's, or one closed state's
  // under a replayed opening), so one price tells whether the limit has passed them all, as bfs's
  // bulk confirmation skips such a run. The limit may have fallen since the state was visited, and a
  // closing the replay made may cost more than its opening promised.
  if (!completions.empty() && engine.bound.binding() && engine.bound.cuts(engine.bound.price_us(completions.front())))
    return false;
  const PhaseClock::Phase caller = worker.clock.running();
  bool found = false;
  for (const KernelGraph& candidate : completions) {
    worker.phase(&PhaseTimes::fingerprint);
    ++worker.counters.fingerprint_evals;
    if (!engine.verifier.fingerprint_matches(candidate, ctx)) continue;
    ++worker.counters.fingerprint_passes;
    worker.phase(&PhaseTimes::verify);
    const VerifyResult confirmation = engine.verifier.confirm(candidate, stop);
    if (confirmation.stopped) break;
    if (!confirmation.equivalent) {
      ++worker.counters.confirm_failures;  // the fingerprint passed a wrong μGraph
      continue;
    }
    ++worker.counters.verified;
    worker.record(candidate, engine.bound);
    found = true;
    break;
  }
  if (!completions.empty()) worker.phase(caller);
  return found;
}

bool verify_completion_groups(const Engine& engine, std::span<const KernelGraph> completions,
                              std::span<const uint32_t> group_ends, Worker& worker, const std::atomic<bool>* stop,
                              FingerprintContext* ctx) {
  bool found = false;
  uint32_t begin = 0;
  for (const uint32_t end : group_ends) {
    if (stop && stop->load(std::memory_order_relaxed)) break;
    found = verify_completions(engine, completions.subspan(begin, end - begin), worker, stop, ctx) || found;
    begin = end;
  }
  return found;
}

namespace {

// A query the oracle's cache does not know, timed as expr.
bool decide(const Engine& engine, Worker& worker, expr::ExprId query) {
  const PhaseClock::Phase caller = worker.clock.running();
  worker.phase(&PhaseTimes::expr);
  const bool keep = engine.oracle.is_subexpr(query);
  worker.phase(caller);
  return keep;
}

}  // namespace

// The generator's work and the oracle's cache counts as expand, the oracle's decisions as expr (as in
// bfs); the clock is left as found. Switching the clock for every state read it twice a state, a cost
// that showed in a one-thread search, while the cache answers nearly every query: the clock switches
// only around a decision.
void visit(const Engine& engine, const State& state, Worker& worker, std::vector<Step>& children) {
  ++worker.counters.states;
  worker.count_state();
  children.clear();
  const CostBound::Reach reach = engine.bound.reach(state, worker.prices);
  if (reach == CostBound::Reach::None) {
    ++worker.counters.pruned.cost;
    return;
  }
  worker.completions.clear();
  if (engine.gen.replays(state)) {  // the closed states below it are terminal: only what they complete
    if (reach == CostBound::Reach::Completions) {
      ++worker.counters.pruned.cost;
      return;
    }
    worker.completion_groups.clear();
    engine.gen.replay(state, worker.completions, worker.completion_groups);
    verify_completion_groups(engine, worker.completions, worker.completion_groups, worker, &engine.stop,
                             worker.fingerprints.get());
    return;
  }
  engine.gen.completions(state, worker.completions);
  // As Mirage, a verified μGraph is not extended; a stopped run generates nothing more.
  if (verify_completions(engine, worker.completions, worker, &engine.stop, worker.fingerprints.get()) ||
      engine.stop.load(std::memory_order_relaxed))
    return;
  if (reach == CostBound::Reach::Completions) {
    ++worker.counters.pruned.cost;
    return;
  }
  const BoundedOpenings bounded(engine.bound, worker.prices);
  engine.gen.candidates(state, children, worker.counters.pruned, &bounded);
  count_symbolic(state, children, worker.counters);
  worker.counters.candidates += children.size();
  size_t kept = 0;
  for (const Step& st : children) {
    bool keep = true;
    if (st.query != kNoQuery) {
      const std::optional<bool> hit = engine.oracle.cached(st.query);
      worker.expr_cache_hits += hit.has_value();
      keep = hit ? *hit : decide(engine, worker, st.query);
    }
    if (keep)
      children[kept++] = st;
    else
      ++worker.counters.pruned.expr;
  }
  children.resize(kept);
}

namespace {

// One state moves in place: an op step is applied, searched below and taken back, where a copy of the
// state per child was a visible share of a dfs; an opening or a closing (which rebuild the block
// graph) is searched on a copy.
void dfs_in_place(const Engine& engine, State& state, Worker& worker, int depth) {
  if (engine.stop.load(std::memory_order_relaxed)) return;
  std::vector<Step>& children = worker.steps_at(depth);
  visit(engine, state, worker, children);
  for (const Step& st : children) {
    if (st.kind == Step::Kind::KernelOp || st.kind == Step::Kind::BlockOp) {
      Generator::apply_op(state, st.op, st.query, st.launches);
      dfs_in_place(engine, state, worker, depth + 1);
      Generator::undo_op(state);
    } else {
      State child = engine.gen.apply(state, st);
      dfs_in_place(engine, child, worker, depth + 1);
    }
  }
}

}  // namespace

// Applying steps counts as expand: the clock runs in expand between visits.
void dfs(const Engine& engine, const State& state, Worker& worker, int depth) {
  State here = state;
  dfs_in_place(engine, here, worker, depth);
}

namespace search_detail {

void run_dfs(const Engine& engine, const State& root, std::deque<Worker>& workers) {
  workers[0].start_work();
  dfs(engine, root, workers[0], 0);
  workers[0].stop_work();
}

}  // namespace search_detail

}  // namespace ugs
