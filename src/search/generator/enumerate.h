#pragma once
// Flat enumeration helpers for the generator: a mixed-radix counter (so a product of choice lists is
// one loop), combinations of indices, and the attribute variants of an op kind.
#include <cstdint>
#include <vector>

#include "ugs/ir/graph.h"
#include "ugs/search/generator/config.h"

namespace ugs::search_detail {

// Counts through every digit vector with 0 <= digit[i] < radix[i]; the first digit turns fastest.
template <int N>
class Odometer {
 public:
  explicit Odometer(const FixedVec<int, N>& radix) : radix_(radix) {
    digits_.resize(radix.size());
    for (int r : radix_) empty_ |= r == 0;
  }
  bool empty() const { return empty_; }
  const FixedVec<int, N>& digits() const { return digits_; }
  bool next() {
    for (int i = 0; i < digits_.size(); ++i) {
      if (++digits_[i] < radix_[i]) return true;
      digits_[i] = 0;
    }
    return false;
  }

 private:
  FixedVec<int, N> radix_, digits_;
  bool empty_ = false;
};

// Advances c, a strictly increasing list of indices below n, to the next such list of the same size.
template <int N>
bool next_combination(FixedVec<int32_t, N>& c, int n) {
  const int k = c.size();
  for (int i = k - 1; i >= 0; --i) {
    if (c[i] < n - k + i) {
      ++c[i];
      for (int j = i + 1; j < k; ++j) c[j] = c[j - 1] + 1;
      return true;
    }
  }
  return false;
}

// Calls f(op) for each attribute variant of `kind` on an operand of shape `a`: every dim for
// reduce_sum, every dim and fold size for reduce_sum_to, every fold size for accum_sum_lastdim_to.
template <class F>
void for_each_variant(OpKind kind, const Shape& a, const SearchConfig& cfg, F f) {
  Op op;
  op.kind = kind;
  switch (info(kind).attrs) {
    case OpAttrs::None: return f(op);
    case OpAttrs::Dim:
      for (int d = 0; d < a.rank; ++d) {
        op.dim = static_cast<int8_t>(d);
        f(op);
      }
      return;
    case OpAttrs::DimTo:
      for (int d = 0; d < a.rank; ++d)
        for (int32_t to : cfg.fold_sizes) {
          op.dim = static_cast<int8_t>(d);
          op.to = to;
          f(op);
        }
      return;
    case OpAttrs::To:
      for (int32_t to : cfg.fold_sizes) {
        op.to = to;
        f(op);
      }
      return;
  }
}

// Calls f(a, b) for the operand tuples of an op of `arity` over n tensors: every tensor, or every
// ordered pair (non-decreasing for commutative ops).
template <class F>
void for_each_operands(int arity_, bool commutative, int n, F f) {
  for (int a = 0; a < n; ++a) {
    if (arity_ == 1) {
      f(a, -1);
      continue;
    }
    for (int b = commutative ? a : 0; b < n; ++b) f(a, b);
  }
}

}  // namespace ugs::search_detail
