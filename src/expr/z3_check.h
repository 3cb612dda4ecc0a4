#pragma once
// The solver stage of the oracle: docs/design.md §4's axioms as quantified formulas over an uninterpreted sort
// (as Mirage states them), reduction sizes as exponent vectors over primes (nested sums add vectors),
// and the query "not (e ⊑ t)" for every target: unsat proves e ⊑ t, sat refutes it, anything else is
// unknown. Each thread has its own z3 context and solver with the axioms asserted once; a query is
// one push/check/pop under a resource limit. Internal to src/expr.
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "ugs/expr/expr.h"

namespace ugs::expr::detail {

enum class Z3Answer : uint8_t { No, Yes, Unknown };

class Z3Checker {
 public:
  Z3Checker(const ExprPool& pool, std::span<const ExprId> targets, int64_t timeout_ms, uint64_t rlimit);
  ~Z3Checker();
  Z3Checker(const Z3Checker&) = delete;
  Z3Checker& operator=(const Z3Checker&) = delete;

  // Thread-safe: runs on the calling thread's own context.
  Z3Answer check(ExprId e);

  struct Session;

 private:
  Session& session();

  const ExprPool& pool_;
  std::vector<ExprId> targets_;
  std::vector<uint32_t> primes_;  // size slots: the targets' primes, then spare slots
  unsigned timeout_ms_, rlimit_;
  uint64_t uid_;
  std::mutex mu_;  // guards sessions_ (creation only)
  std::vector<std::unique_ptr<Session>> sessions_;
};

}  // namespace ugs::expr::detail
