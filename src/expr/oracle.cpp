// The subexpression oracle (include/ugs/expr/oracle.h): cache, structure, z3, and the batch driver.
#include "ugs/expr/oracle.h"

#include <omp.h>

#include <algorithm>
#include <chrono>

#include "answer_cache.h"
#include "structural.h"
#include "z3_check.h"

namespace ugs::expr {

Oracle::Oracle(ExprPool& pool, std::span<const ExprId> targets, OracleConfig cfg)
    : pool_(pool),
      cfg_(cfg),
      structural_(std::make_unique<detail::StructuralIndex>(pool, targets)),
      cache_(std::make_unique<detail::AnswerCache>()) {
  // A target past the pool's limits cannot be encoded; the solver then proves (never refutes)
  // against the others, and decide() keeps whatever it cannot prove.
  std::vector<ExprId> encodable;
  for (ExprId t : targets)
    if (pool.kind(t) != ExprKind::Huge) encodable.push_back(t);
  z3_ = std::make_unique<detail::Z3Checker>(pool, encodable, cfg.z3_timeout_ms, cfg.z3_rlimit);
}

Oracle::~Oracle() = default;

bool Oracle::decide(ExprId e) {
  using detail::Answer;
  if (!cfg_.prune) {
    undecided_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  // A huge expression cannot be encoded for the solver: structure decides it even when it is off.
  if (cfg_.structural || pool_.kind(e) == ExprKind::Huge) {
    const Answer s = structural_->decide(e);
    if (s != Answer::Unknown) {
      structural_n_.fetch_add(1, std::memory_order_relaxed);
      return s == Answer::Yes;
    }
  }
  if (!cfg_.use_z3) {
    undecided_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  const auto t0 = std::chrono::steady_clock::now();
  const detail::Z3Answer z = z3_->check(e);
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0);
  z3_ns_.fetch_add(static_cast<uint64_t>(ns.count()), std::memory_order_relaxed);
  z3_calls_.fetch_add(1, std::memory_order_relaxed);
  if (z == detail::Z3Answer::Unknown) z3_unknown_.fetch_add(1, std::memory_order_relaxed);
  // sat refutes e ⊑ t for the encodable targets only; with a huge target, keep.
  const bool keep = z != detail::Z3Answer::No || structural_->targets_huge();
  if (cfg_.log_z3) {
    std::lock_guard<std::mutex> l(log_lock_);  // once per z3 call, which costs milliseconds
    z3_log_.emplace_back(e, keep);
  }
  return keep;
}

std::optional<bool> Oracle::known_without_z3(ExprId e) const {
  if (const std::optional<bool> hit = remembered(e)) return hit;
  if (!cfg_.prune) return true;                               // as decide() answers it
  if (cfg_.structural || pool_.kind(e) == ExprKind::Huge) {  // as decide() asks it
    const detail::Answer s = structural_->decide(e);
    if (s != detail::Answer::Unknown) return s == detail::Answer::Yes;
  }
  return std::nullopt;
}

void Oracle::learn(ExprId e, bool keep) { remember(e, keep); }

std::optional<bool> Oracle::cached(ExprId e) const { return remembered(e); }

std::optional<bool> Oracle::remembered(ExprId e) const {
  return cfg_.cache ? cache_->find(e) : std::nullopt;
}

void Oracle::remember(ExprId e, bool keep) {
  if (cfg_.cache) cache_->put(e, keep);
}

void Oracle::add_cache_hits(uint64_t n) {
  queries_.fetch_add(n, std::memory_order_relaxed);
  cache_hits_.fetch_add(n, std::memory_order_relaxed);
}

void Oracle::take_z3_log(std::vector<std::pair<ExprId, bool>>& out) {
  std::lock_guard<std::mutex> l(log_lock_);
  out.insert(out.end(), z3_log_.begin(), z3_log_.end());
  z3_log_.clear();
}

bool Oracle::cached_or_decide(ExprId e) {
  if (const std::optional<bool> hit = remembered(e)) {
    cache_hits_.fetch_add(1, std::memory_order_relaxed);
    return *hit;
  }
  const bool keep = decide(e);
  remember(e, keep);
  return keep;
}

bool Oracle::is_subexpr(ExprId e) {
  queries_.fetch_add(1, std::memory_order_relaxed);
  return cached_or_decide(e);
}

// Three passes: look every query up in the cache (in parallel: in a search most are hits), gather the
// distinct misses, decide those in parallel. Only the last pass does real work, dynamically scheduled
// because a z3 call costs orders of magnitude more than a structural decision.
void Oracle::is_subexpr_batch(std::span<const ExprId> queries, std::vector<uint8_t>& answers,
                              const std::atomic<bool>* stop) {
  constexpr uint8_t kMiss = 2;
  const auto n = static_cast<std::ptrdiff_t>(queries.size());
  const int threads = cfg_.threads > 0 ? cfg_.threads : omp_get_max_threads();
  queries_.fetch_add(queries.size(), std::memory_order_relaxed);
  answers.resize(queries.size());
  uint64_t hits = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : hits) if (n > 4096)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const std::optional<bool> hit = remembered(queries[i]);
    answers[i] = hit ? static_cast<uint8_t>(*hit) : kMiss;
    hits += hit.has_value();
  }
  std::vector<ExprId> misses;
  for (std::ptrdiff_t i = 0; i < n; ++i)
    if (answers[i] == kMiss) misses.push_back(queries[i]);
  const size_t missed = misses.size();
  if (cfg_.cache) {  // repeats are decided once; without the cache each query is decided on its own
    std::sort(misses.begin(), misses.end());
    misses.erase(std::unique(misses.begin(), misses.end()), misses.end());
  }
  cache_hits_.fetch_add(hits + (missed - misses.size()), std::memory_order_relaxed);  // repeats count as hits

  std::vector<uint8_t> decided(misses.size());
  const auto m = static_cast<std::ptrdiff_t>(misses.size());
  uint64_t unasked = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(+ : unasked) if (m > 1)
  for (std::ptrdiff_t i = 0; i < m; ++i) {
    if (stop && stop->load(std::memory_order_relaxed)) {
      decided[i] = 1;  // kept, never pruned: the search ends with this batch
      ++unasked;
      continue;
    }
    decided[i] = cached_or_decide(misses[i]);
  }
  undecided_.fetch_add(unasked, std::memory_order_relaxed);
  for (std::ptrdiff_t i = 0, next = 0; i < n; ++i) {
    if (answers[i] != kMiss) continue;
    answers[i] = cfg_.cache ? decided[std::lower_bound(misses.begin(), misses.end(), queries[i]) - misses.begin()]
                            : decided[next++];
  }
}

OracleStats Oracle::stats() const {
  OracleStats s;
  s.queries = queries_.load(std::memory_order_relaxed);
  s.cache_hits = cache_hits_.load(std::memory_order_relaxed);
  s.structural = structural_n_.load(std::memory_order_relaxed);
  s.z3_calls = z3_calls_.load(std::memory_order_relaxed);
  s.z3_unknown = z3_unknown_.load(std::memory_order_relaxed);
  s.z3_s = static_cast<double>(z3_ns_.load(std::memory_order_relaxed)) * 1e-9;
  s.undecided = undecided_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace ugs::expr
