// One batch of the breadth-first search: decode, verify in bulk, generate, query the oracle in bulk,
// make the children. Each phase is one parallel loop over the batch or one bulk call; the serial glue
// between them only concatenates the threads' buffers, in thread order, so a run is repeatable.
#include <algorithm>

#include "bfs_impl.h"
#include "ugs/ir/canonical.h"
#include "ugs/util/hash.h"

namespace ugs::search_detail {

void Bfs::expand(int depth) {
  if (r_.levels.size() <= static_cast<size_t>(depth)) r_.levels.resize(depth + 1);
  r_.levels[depth].level = depth;
  r_.levels[depth].frontier += batch_.size();
  decode();
  verify();
  generate();
  check_exprs();
  make_children(depth);
}

void Bfs::decode() {
  const auto t0 = Clock::now();
  n_ = batch_.size();
  if (states_.size() < n_) states_.resize(n_);
  matched_.assign(n_, 0);
  verified_.assign(n_, 0);
  parallel(n_, [&](size_t i, int) { search_detail::decode(batch_[i], states_[i]); });
  collector_.c.phase_s.expand += seconds_since(t0);
}

// The μGraphs the batch's states complete, fingerprinted in one call. A state with a match is not
// expanded if one of its matching completions passes confirmation (as `visit` does in the depth-first
// drivers); the confirmations run as tasks beside the generation of the other states.
void Bfs::verify() {
  auto t0 = Clock::now();
  for (ThreadScratch& s : scratch_) {
    s.completions.clear();
    s.owners.clear();
  }
  parallel(n_, [&](size_t i, int t) {
    ThreadScratch& s = scratch_[t];
    e_.gen.completions(states_[i], s.completions);
    s.owners.resize(s.completions.size(), static_cast<uint32_t>(i));
  });
  graphs_.clear();
  owner_.clear();
  runs_.clear();
  for (ThreadScratch& s : scratch_)
    for (size_t k = 0; k < s.completions.size(); ++k) {
      graphs_.push_back(&s.completions[k]);
      owner_.push_back(s.owners[k]);
    }
  collector_.c.phase_s.expand += seconds_since(t0);
  if (graphs_.empty()) return;
  t0 = Clock::now();
  e_.verifier.backend().fingerprint(graphs_, fp_);
  collector_.c.fingerprint_evals += graphs_.size();
  collector_.c.phase_s.fingerprint += seconds_since(t0);
  for (size_t k = 0; k < graphs_.size();) {
    size_t end = k;
    bool any = false;
    while (end < graphs_.size() && owner_[end] == owner_[k]) any |= fp_.match[end++] != 0;
    if (any) {
      runs_.emplace_back(k, end);
      matched_[owner_[k]] = 1;
    }
    k = end;
  }
}

// Confirms run j's matching completions in order; the first that passes is recorded.
void Bfs::confirm_run(size_t j) {
  const auto t0 = Clock::now();
  Worker& w = workers_[omp_get_thread_num()];
  for (size_t k = runs_[j].first; k < runs_[j].second; ++k) {
    if (!fp_.match[k]) continue;
    ++w.c.fingerprint_passes;
    if (!e_.verifier.confirm(*graphs_[k]).equivalent) {
      ++w.c.confirm_failures;
      continue;
    }
    ++w.c.verified;
    w.found.push_back(*graphs_[k]);
    verified_[owner_[k]] = 1;
    break;
  }
  w.c.phase_s.verify += seconds_since(t0);
  w.c.busy_s += seconds_since(t0);
}

void Bfs::generate_one(size_t i, int t) {
  ThreadScratch& s = scratch_[t];
  Worker& w = workers_[t];
  s.steps.clear();
  e_.gen.candidates(states_[i], s.steps, w.c.pruned);
  w.c.candidates += s.steps.size();
  for (const Step& st : s.steps) s.pending.push_back({static_cast<uint32_t>(i), st});
}

void Bfs::generate() {
  const auto t0 = Clock::now();
  for (ThreadScratch& s : scratch_) s.pending.clear();
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    const auto busy = Clock::now();
#pragma omp single nowait
    for (size_t j = 0; j < runs_.size(); ++j) {
#pragma omp task firstprivate(j)
      confirm_run(j);
    }
#pragma omp for schedule(static, 16) nowait
    for (size_t i = 0; i < n_; ++i) {
      ++workers_[t].c.states;
      workers_[t].progress.fetch_add(1, std::memory_order_relaxed);
      if (!matched_[i]) generate_one(i, t);
    }
    workers_[t].c.busy_s += seconds_since(busy);
  }  // the barrier waits for the confirmations
  for (const auto& [begin, end] : runs_)  // every match a false pass (rare): expanded after all
    if (!verified_[owner_[begin]]) generate_one(owner_[begin], 0);
  collector_.c.phase_s.expand += seconds_since(t0);
}

// Every query of the batch in one oracle call (which answers each distinct one once).
void Bfs::check_exprs() {
  const auto t0 = Clock::now();
  std::vector<expr::ExprId>& queries = queries_;
  std::vector<uint8_t>& answers = answers_;
  queries.clear();
  for (const ThreadScratch& s : scratch_)
    for (const Pending& p : s.pending)
      if (p.step.query != kNoQuery) queries.push_back(p.step.query);
  share_z3(queries);  // with ranks: what only z3 can answer, solved once over all of them
  e_.oracle.is_subexpr_batch(queries, answers);
  size_t q = 0;
  for (ThreadScratch& s : scratch_) {
    s.keep.resize(s.pending.size());
    for (size_t k = 0; k < s.pending.size(); ++k) {
      s.keep[k] = s.pending[k].step.query == kNoQuery || answers[q++];
      collector_.c.pruned.expr += !s.keep[k];
    }
  }
  collector_.c.phase_s.expr += seconds_since(t0);
}

// The kept steps applied and encoded by the thread that generated them, deduplicated, then copied
// into slabs (in parallel) that join the next layer in thread order.
void Bfs::make_children(int depth) {
  auto t0 = Clock::now();
  const bool by_function = opt_.dedup == Dedup::Function;
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    const auto busy = Clock::now();
    ThreadScratch& s = scratch_[t];
    s.children.clear();
    s.keys.clear();
    s.kernel_level.clear();
    s.kernel_level_child.clear();
    for (size_t k = 0; k < s.pending.size(); ++k) {
      if (!s.keep[k]) continue;
      s.child = states_[s.pending[k].parent];
      e_.gen.apply_in_place(s.child, s.pending[k].step);
      s.keys.push_back(structural_key(s.child));
      if (by_function && !s.child.open) {
        s.kernel_level.push_back(s.child.g);
        s.kernel_level_child.push_back(static_cast<uint32_t>(s.children.size()));
      }
      s.children.push(s.child);
    }
    workers_[t].c.busy_s += seconds_since(busy);
  }
  collector_.c.phase_s.expand += seconds_since(t0);

  std::vector<std::vector<uint8_t>> keep(scratch_.size());
  for (size_t t = 0; t < scratch_.size(); ++t) keep[t].assign(scratch_[t].children.size(), 1);
  dedup(keep);
  const uint64_t routed = route_out(keep);  // with ranks: the children other ranks own leave

  t0 = Clock::now();
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    const auto busy = Clock::now();
    ThreadScratch& s = scratch_[t];
    s.slabs.clear();
    for (size_t i = 0; i < s.children.size(); ++i) {
      if (!keep[t][i]) continue;
      if (s.slabs.empty() || !s.slabs.back().fits(s.children.bytes_of(i))) s.slabs.push_back(take_slab());
      s.slabs.back().push_from(s.children, i);
    }
    workers_[t].c.busy_s += seconds_since(busy);
  }
  uint64_t survivors = routed;
  for (ThreadScratch& s : scratch_)
    for (Frontier& slab : s.slabs) {
      survivors += slab.size();
      children_bytes_ += slab.bytes();
      layers_[depth + 1].add(std::move(slab));
    }
  collector_.c.phase_s.expand += seconds_since(t0);
  route_in(depth, keep);  // and those this rank owns arrive
  expanded_ += n_;
  LevelStats& l = r_.levels[depth];
  for (const ThreadScratch& s : scratch_) l.candidates += s.pending.size();
  l.survivors += survivors;
}

}  // namespace ugs::search_detail
