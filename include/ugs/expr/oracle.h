#pragma once
// The subexpression oracle (docs/design.md §4): is a candidate op's expression a subexpression of the
// program's, under the axioms? A query is answered by the first stage that can:
//   1. a memo cache shared by all threads (one entry per distinct expression id, lock-free reads;
//      OracleConfig::cache off skips it, to measure what it saves);
//   2. a structural decision on the normal forms, no solver (monotone facts reject; an occurrence in
//      a target, or a cofactor that fits a sum of the target, accepts; exact except for rare
//      divisions by sums, which it leaves to the next stage);
//   3. z3 with the axioms, one context per thread, under a resource limit.
// Unknown keeps the candidate (Mirage's Theorem 1: no prefix of a μGraph equivalent to the program
// is pruned), counted in stats().z3_unknown.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "ugs/expr/expr.h"

namespace ugs::expr {

namespace detail {
class StructuralIndex;
class Z3Checker;
class AnswerCache;
}  // namespace detail

struct OracleConfig {
  // Wall-clock cap of one z3 call, a safety net: the resource limit below decides first, and unlike
  // time it gives the same answer on every machine and load.
  int64_t z3_timeout_ms = 1000;
  // z3 resource units per call (z3's `rlimit`, applied per check), a budget that does not depend on
  // the machine: z3 proves the simple subexpressions (the paper's example) well within it, and what it
  // cannot settle in this budget it rarely settles at all.
  uint64_t z3_rlimit = 200000;
  bool structural = true;  // false: every uncached query goes to z3 (Mirage's scheme; for comparisons)
  bool use_z3 = true;      // false: what structure cannot decide is kept without asking z3
  bool prune = true;       // false: every query is kept, undecided (the check off, to measure what it cuts)
  bool cache = true;       // false: no answer is remembered, every query is decided anew (to measure the cache)
  int threads = 0;         // threads of is_subexpr_batch; 0: OpenMP's default
  bool log_z3 = false;     // keep z3's decisions for take_z3_log (a distributed search shares them)
};

// docs/design.md §9 stats.expr. queries = cache_hits + structural + z3_calls + undecided.
struct OracleStats {
  uint64_t queries = 0, cache_hits = 0, structural = 0, z3_calls = 0, z3_unknown = 0;
  double z3_s = 0;
  uint64_t undecided = 0;  // kept with z3 disabled (use_z3 = false) and structure undecided

  OracleStats& operator+=(const OracleStats& o) {
    queries += o.queries;
    cache_hits += o.cache_hits;
    structural += o.structural;
    z3_calls += o.z3_calls;
    z3_unknown += o.z3_unknown;
    z3_s += o.z3_s;
    undecided += o.undecided;
    return *this;
  }
};

class Oracle {
 public:
  // targets: the expressions of the program's outputs; e is kept if it is a subexpression of any.
  Oracle(ExprPool& pool, std::span<const ExprId> targets, OracleConfig cfg = {});
  ~Oracle();
  Oracle(const Oracle&) = delete;
  Oracle& operator=(const Oracle&) = delete;

  // Thread-safe.
  bool is_subexpr(ExprId e);
  // All queries of one step: duplicates answered once, the distinct uncached ones in parallel
  // (OpenMP, config().threads). answers[i] (0 or 1) for queries[i]. Once `stop` is raised the
  // queries not yet decided are kept unasked (counted undecided): a batch of z3 calls can take
  // minutes, and a stopped search must end within its time limit.
  void is_subexpr_batch(std::span<const ExprId> queries, std::vector<uint8_t>& answers,
                        const std::atomic<bool>* stop = nullptr);
  // The cache's answer alone (lock-free), or nullopt; nothing is counted. A driver that answers what
  // it can this way, inline, and sends the rest to is_subexpr_batch reports its hits with add_cache_hits.
  std::optional<bool> cached(ExprId e) const;
  void add_cache_hits(uint64_t n);  // n queries answered by cached()

  OracleStats stats() const;
  const OracleConfig& config() const { return cfg_; }

  // For searches spread over processes, each with its own oracle (and pool). None is counted in stats().
  // The answer of the cache or of the structural stage, or nullopt when only z3 can decide e.
  std::optional<bool> known_without_z3(ExprId e) const;
  // An answer decided elsewhere (another process's z3), entered into the cache.
  void learn(ExprId e, bool keep);
  // Appends to `out` the (query, answer) pairs z3 decided since the last call (with config().log_z3).
  void take_z3_log(std::vector<std::pair<ExprId, bool>>& out);

 private:
  bool cached_or_decide(ExprId e);  // one distinct query: the cache, else decide() and remember
  std::optional<bool> remembered(ExprId e) const;  // the cache's answer; none when the cache is off
  void remember(ExprId e, bool keep);
  bool decide(ExprId e);            // structure, then z3 (counted)

  ExprPool& pool_;
  OracleConfig cfg_;
  std::unique_ptr<detail::StructuralIndex> structural_;
  std::unique_ptr<detail::Z3Checker> z3_;
  std::unique_ptr<detail::AnswerCache> cache_;
  std::mutex log_lock_;
  std::vector<std::pair<ExprId, bool>> z3_log_;
  std::atomic<uint64_t> queries_{0}, cache_hits_{0}, structural_n_{0}, z3_calls_{0}, z3_unknown_{0}, z3_ns_{0},
      undecided_{0};
};

}  // namespace ugs::expr
