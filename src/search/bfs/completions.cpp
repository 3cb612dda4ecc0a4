#include "search/bfs/completions.h"

#include <omp.h>

#include <algorithm>

namespace ugs::search_detail {

void Fed::clear() {
  completions.clear();
  owners.clear();
  groups.clear();
  matched.clear();
}

Completions::Completions(const Engine& engine, std::deque<Worker>& workers, Worker& collector, bool batched,
                         bool pipelined, const std::atomic<bool>* stop)
    : engine_(engine), workers_(workers), collector_(collector), batched_(batched), pipelined_(pipelined),
      stop_(stop) {
  if (batched_)
    feed_ = std::make_unique<FingerprintFeed>(engine.verifier.backend(), stop, static_cast<int>(workers.size()));
}

Completions::~Completions() = default;

void Completions::begin(const Batch& batch) {
  now_ ^= 1;
  if (fed_[now_].size() < batch.own_chunks) fed_[now_].resize(batch.own_chunks);
  if (feed_) before_mark_ = feed_->mark();
}

void Completions::hand_in(size_t c) {
  Fed& f = fed_[now_][c];
  if (feed_ && !f.completions.empty()) feed_->add(f.completions, &f.matched);
}

void Completions::verify(const Batch& batch, Team& team) {
  runs_.clear();
  verified_.assign(batch.size(), 0);
  if (!feed_) return;  // completions verified as they came (the expander)
  fingerprint(batch);
  if (graphs_.empty() || raised(stop_)) return;  // stopped: the fingerprints may be incomplete
  for (size_t k = 0; k < graphs_.size();) {
    size_t end = k;
    bool any = false;
    while (end < graphs_.size() && owner_[end] == owner_[k] && group_[end] == group_[k])
      any |= fp_.match[end++] != 0;
    if (any) runs_.push_back({k, end});
    k = end;
  }
  if (engine_.bound.active()) order_runs_by_cost();
  if (!runs_.empty() && engine_.verifier.confirms_on_device()) confirm_field_tests_in_bulk();
  // One run: its confirmation with the evaluator's own threads (blocks, rows); more: side by side,
  // each on one thread (the float64 check of a large candidate gains little from the evaluator's).
  if (runs_.size() <= 1)
    for (size_t j = 0; j < runs_.size(); ++j) confirm_run(j);
  else
    team.each(&IdleTimes::confirm, runs_.size(), [&](size_t j, int) { confirm_run(j); }, /*dynamic=*/true);
}

// The completions to verify into graphs_, owner_ and fp_.match, in batch order, once the feed has
// their flags: the carried states' (fed while the batch before expanded, and while this one did) and,
// when the batch drains, its own. The feed's time in backend calls is the phase's, though it
// overlapped the expansion.
void Completions::fingerprint(const Batch& batch) {
  const auto start = Clock::now();
  const FingerprintFeed::Done done = feed_->wait(batch.draining ? FingerprintFeed::kAll : before_mark_);
  collector_.counters.phase_s.fingerprint += done.call_s;
  feed_calls_ += done.calls;
  wait_s_ += seconds_since(start);
  graphs_.clear();
  owner_.clear();
  group_.clear();
  fp_.match.clear();
  if (batch.size() > batch.own) gather(fed_[now_ ^ 1], before_chunks_, static_cast<uint32_t>(batch.own));
  if (batch.draining) gather(fed_[now_], batch.own_chunks, 0);
  collector_.counters.fingerprint_evals += graphs_.size();
}

// Owners in `fed` are batch states less first_owner.
void Completions::gather(std::vector<Fed>& fed, size_t chunks, uint32_t first_owner) {
  for (size_t c = 0; c < chunks; ++c) {
    const Fed& f = fed[c];
    for (size_t k = 0; k < f.completions.size(); ++k) {
      graphs_.push_back(&f.completions[k]);
      owner_.push_back(first_owner + f.owners[k]);
      group_.push_back(f.groups[k]);
    }
    fp_.match.insert(fp_.match.end(), f.matched.begin(), f.matched.end());
  }
}

// The field tests of every matching completion of the runs, one backend call per test (the device
// tests some a run-by-run confirmation would have skipped after an earlier pass: cheaper than calls).
void Completions::confirm_field_tests_in_bulk() {
  const auto start = Clock::now();
  matched_.clear();
  matched_at_.assign(graphs_.size(), 0);
  for (const Run& run : runs_)
    for (size_t k = run.begin; k < run.end; ++k)
      if (fp_.match[k]) {
        matched_at_[k] = static_cast<uint32_t>(matched_.size());
        matched_.push_back(graphs_[k]);
      }
  engine_.verifier.confirm_field_tests(matched_, confirm_passes_);
  collector_.counters.phase_s.verify += seconds_since(start);
}

// --objective best: the cheapest runs are confirmed first, so the first μGraph confirmed lowers the
// cost limit as far as this batch can, and the runs past it are skipped (confirm_run). A run is one
// state's completions (one closed state's, under a replayed opening), which share their kernel ops and so
// their cost.
void Completions::order_runs_by_cost() {
  for (Run& run : runs_) run.us = engine_.bound.price_us(*graphs_[run.begin]);
  std::stable_sort(runs_.begin(), runs_.end(), [](const Run& a, const Run& b) { return a.us < b.us; });
}

// Confirms run j's matching completions in order; the first that passes is recorded. A run that the
// cost bound cuts by now is not confirmed.
void Completions::confirm_run(size_t j) {
  if (engine_.bound.cuts(runs_[j].us)) return;  // us is set whenever the bound is active
  const auto start = Clock::now();
  Worker& worker = workers_[omp_get_thread_num()];
  const bool bulk = engine_.verifier.confirms_on_device();
  const size_t tests = static_cast<size_t>(engine_.verifier.confirm_tests());
  for (size_t k = runs_[j].begin; k < runs_[j].end && !raised(stop_); ++k) {
    if (!fp_.match[k]) continue;
    ++worker.counters.fingerprint_passes;
    const VerifyResult outcome =
        bulk ? engine_.verifier.confirm_with(*graphs_[k],
                                             std::span(confirm_passes_).subspan(matched_at_[k] * tests, tests))
             : engine_.verifier.confirm(*graphs_[k], stop_);
    if (outcome.stopped) break;
    if (!outcome.equivalent) {
      ++worker.counters.confirm_failures;
      continue;
    }
    ++worker.counters.verified;
    worker.record(*graphs_[k], engine_.bound);
    verified_[owner_[k]] = 1;
    break;
  }
  worker.counters.phase_s.verify += seconds_since(start);
}

void Completions::carry(const Batch& batch, std::vector<NodeId>& carried) {
  carried.clear();
  before_chunks_ = batch.own_chunks;
  if (batch.draining) return;
  for (size_t c = 0; c < batch.own_chunks; ++c) {
    const std::vector<uint32_t>& deferred = batch.chunks[c].deferred;
    size_t j = 0;  // owners and deferred both ascend
    for (uint32_t& owner : fed_[now_][c].owners) {
      while (deferred[j] != owner) ++j;
      owner = static_cast<uint32_t>(carried.size() + j);
    }
    for (uint32_t i : deferred) carried.push_back(batch.nodes[i]);
  }
}

}  // namespace ugs::search_detail
