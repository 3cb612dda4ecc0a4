#pragma once
// The normal form's algebra (include/ugs/expr/expr.h): an expression as its list of summands
// ("terms"), and the operations on them that every constructor and the oracle's structural decision
// share. Internal to src/expr.
#include <vector>

#include "ugs/expr/expr.h"

namespace ugs::expr::detail {

// One summand: k · atoms · exp(exp) · sqrt(sqrt) / den. The empty term (no factor, k = 1, no den)
// is the unit 1; it and other terms without a factor occur only as cofactors, never in an expression.
struct Term {
  Size k;
  std::vector<ExprId> atoms;  // Var, Silu and Rms nodes in canonical order, repeats allowed
  ExprId exp = kNoExpr;       // argument of the one exp factor
  ExprId sqrt = kNoExpr;      // argument of the one sqrt factor
  ExprId den = kNoExpr;       // denominator
  bool has_factor() const { return !atoms.empty() || exp != kNoExpr || sqrt != kNoExpr; }
  int degree() const { return static_cast<int>(atoms.size()) + (exp != kNoExpr) + (sqrt != kNoExpr); }
};

// Op codes of the memo (ExprPool::memoized).
// The unary constructors are memoized too, so that each thread's memo front answers them.
enum MemoOp : uint32_t { kOpAdd, kOpMul, kOpDiv, kOpSum, kOpExp, kOpSqrt, kOpSilu, kOpRms };

class Algebra {
 public:
  explicit Algebra(ExprPool& pool) : pool_(pool) {}
  ExprPool& pool() const { return pool_; }

  // The summands of a normal form, appended to `out`.
  void terms(ExprId e, std::vector<Term>& out) const;
  // The normal form of a sum of terms (each with a factor); Huge past the pool's limits.
  ExprId build(std::vector<Term>& terms);
  // The numerator node of a term with a factor (identifies it together with `den`).
  ExprId monomial(const Term& t);
  // a·b; false past the limits (the caller answers Huge).
  bool multiply(const Term& a, const Term& b, Term* out);
  // The op of a memo entry on normal forms a, b (kOpSum: sum(k, a)).
  ExprId apply(uint32_t op, ExprId a, ExprId b, const Size& k);
  ExprId intern(ExprKind kind, std::span<const ExprId> kids, const Size& size = Size()) {
    return pool_.intern(kind, kids, size);
  }

 private:
  void add_monomial(ExprId m, ExprId den, std::vector<Term>& out) const;
  ExprId make_sum(std::vector<ExprId>& items);
  ExprId combine(ExprId x, ExprId y, bool as_sum);  // x + y or x · y where either may be kNoExpr

  ExprPool& pool_;
};

}  // namespace ugs::expr::detail
