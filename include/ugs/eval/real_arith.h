#pragma once
// Real arithmetic in float64: the evaluator's third scalar, for the numerical check of docs/design.md §3.
#include <cmath>
#include <cstdint>
#include <string_view>

#include "ugs/util/hash.h"

namespace ugs {

struct RealArith {
  using Value = double;
  struct Acc {
    double v = 0;
  };
  static constexpr std::string_view name = "float64";

  static constexpr Value zero() { return 0.0; }
  static Value add(Value a, Value b) { return a + b; }
  static Value mul(Value a, Value b) { return a * b; }
  // A prepared divisor is the divisor itself: a / b, not a · (1/b), whose last bit can differ.
  using Divisor = Value;
  static Divisor divisor(Value b, uint64_t& zeros) {
    zeros += b == 0.0;
    return b;
  }
  static Value div_by(Value a, Divisor b) { return b == 0.0 ? 0.0 : a / b; }
  static Value div(Value a, Value b, uint64_t& zeros) { return div_by(a, divisor(b, zeros)); }
  static Value exp(Value a) { return std::exp(a); }
  static Value sqrt(Value a) { return std::sqrt(a); }
  static Value silu(Value a) { return a / (1.0 + std::exp(-a)); }
  static Value from_count(int64_t n) { return static_cast<double>(n); }

  static void acc_add(Acc& s, Value a) { s.v += a; }
  static void acc_fma(Acc& s, Value a, Value b) { s.v += a * b; }
  // The two terms in order, each rounded: the same bits as two acc_fma.
  static void acc_fma2(Acc& s, Value a0, Value b0, Value a1, Value b1) {
    s.v += a0 * b0;
    s.v += a1 * b1;
  }
  static Value acc_value(const Acc& s) { return s.v; }

  // Inputs: uniform in [-1, 1) from 64 random bits.
  UGS_HD static constexpr Value sample(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0; }
};

}  // namespace ugs
