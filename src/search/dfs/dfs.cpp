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
  return *this;
}

std::vector<Step>& Worker::steps_at(int depth) {
  while (static_cast<int>(by_depth.size()) <= depth) by_depth.emplace_back();
  return by_depth[depth];
}

// Phases switch to fingerprint and verify and back to the one running when called.
bool verify_completions(const Engine& e, std::span<const KernelGraph> completions, Worker& w,
                        const std::atomic<bool>* stop, FingerprintContext* ctx) {
  const PhaseClock::Phase caller = w.clock.running();
  bool found = false;
  for (const KernelGraph& g : completions) {
    w.phase(&PhaseTimes::fingerprint);
    ++w.c.fingerprint_evals;
    if (!e.verifier.fingerprint_matches(g, ctx)) continue;
    ++w.c.fingerprint_passes;
    w.phase(&PhaseTimes::verify);
    const VerifyResult r = e.verifier.confirm(g, stop);
    if (r.stopped) break;
    if (!r.equivalent) {
      ++w.c.confirm_failures;  // the fingerprint passed a wrong μGraph
      continue;
    }
    ++w.c.verified;
    w.found.push_back(g);
    found = true;
    break;
  }
  if (!completions.empty()) w.phase(caller);
  return found;
}

namespace {

// A query the oracle's cache does not know, timed as expr.
bool decide(const Engine& e, Worker& w, expr::ExprId query) {
  const PhaseClock::Phase caller = w.clock.running();
  w.phase(&PhaseTimes::expr);
  const bool keep = e.oracle.is_subexpr(query);
  w.phase(caller);
  return keep;
}

}  // namespace

// The generator's work and the oracle's cache counts as expand, the oracle's decisions as expr (as in
// bfs); the clock is left as found. Switching the clock for every state read it twice a state: 1.5 s
// of gqa_small's 23 s on one thread, where the cache answers all but 1,137 of 153 million queries.
void visit(const Engine& e, const State& s, Worker& w, std::vector<Step>& children) {
  ++w.c.states;
  w.progress.fetch_add(1, std::memory_order_relaxed);
  children.clear();
  w.completions.clear();
  e.gen.completions(s, w.completions);
  // As Mirage, a verified μGraph is not extended; a stopped run generates nothing more.
  if (verify_completions(e, w.completions, w, &e.stop) || e.stop.load(std::memory_order_relaxed)) return;
  e.gen.candidates(s, children, w.c.pruned);
  w.c.candidates += children.size();
  size_t kept = 0;
  for (const Step& st : children) {
    bool keep = true;
    if (st.query != kNoQuery) {
      const std::optional<bool> hit = e.oracle.cached(st.query);
      w.expr_cache_hits += hit.has_value();
      keep = hit ? *hit : decide(e, w, st.query);
    }
    if (keep)
      children[kept++] = st;
    else
      ++w.c.pruned.expr;
  }
  children.resize(kept);
}

namespace {

// One state moves in place: an op step is applied, searched below and taken back, where a copy of the
// state per child cost 7% of gqa_small's dfs; an opening or a closing (which rebuild the block
// graph) is searched on a copy.
void dfs_in_place(const Engine& e, State& s, Worker& w, int depth) {
  if (e.stop.load(std::memory_order_relaxed)) return;
  std::vector<Step>& children = w.steps_at(depth);
  visit(e, s, w, children);
  for (const Step& st : children) {
    if (st.kind == Step::Kind::KernelOp || st.kind == Step::Kind::BlockOp) {
      Generator::apply_op(s, st.op, st.query);
      dfs_in_place(e, s, w, depth + 1);
      Generator::undo_op(s);
    } else {
      State child = e.gen.apply(s, st);
      dfs_in_place(e, child, w, depth + 1);
    }
  }
}

}  // namespace

// Applying steps counts as expand: the clock runs in expand between visits.
void dfs(const Engine& e, const State& s, Worker& w, int depth) {
  State here = s;
  dfs_in_place(e, here, w, depth);
}

namespace search_detail {

void run_dfs(const Engine& e, const State& root, std::deque<Worker>& workers) {
  workers[0].start_work();
  dfs(e, root, workers[0], 0);
  workers[0].stop_work();
}

}  // namespace search_detail

}  // namespace ugs
