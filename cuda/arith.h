#pragma once
// The arithmetics the CUDA backend's kernels are instantiated with: the two finite fields of the
// fingerprints (FieldKind) and, for the float64 check, doubles kept in the same 8-byte slots, so that
// the plan, the lowering and the interpreter serve all three unchanged.
#include <cstdint>
#include <cstring>
#include <vector>

#include "ugs/eval/draws.h"
#include "ugs/eval/field_kind.h"
#include "ugs/eval/real_arith.h"
#include "ugs/field/exp_table.h"

namespace ugs::cuda {

enum class Arith { Wide, Mirage, Real };

constexpr Arith arith_of(FieldKind f) { return f == FieldKind::Mirage ? Arith::Mirage : Arith::Wide; }

// ω of a seed in a field's arithmetic (draws.h); 1 for the float64 check's, which has none.
inline uint32_t omega_of_seed(Arith a, uint64_t seed) {
  return a == Arith::Real ? 1 : omega_of_seed(a == Arith::Mirage ? FieldKind::Mirage : FieldKind::Wide, seed);
}

// RealArith's operations on a double stored in a FieldPair's bytes. The interpreter sums in another
// order than the CPU evaluator (split matmuls, tree reductions), so the outputs agree with the CPU's
// to rounding, not to the bit: enough for a check with a tolerance.
struct RealSlotArith {
  using Value = FieldPair;
  struct Acc {
    double v = 0;
  };

  // The slot's bytes are the double's (p the low word on a little-endian machine, as host and device
  // are), so a slot copied to the host as a double reads as one.
  UGS_HD static double get(Value a) {
    const uint64_t u = (uint64_t{a.q} << 32) | a.p;
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
  }
  UGS_HD static Value put(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof d);
    return {static_cast<uint32_t>(u), static_cast<uint32_t>(u >> 32)};
  }

  UGS_HD static Value zero() { return put(0.0); }
  UGS_HD static Value add(Value a, Value b) { return put(get(a) + get(b)); }
  UGS_HD static Value mul(Value a, Value b) { return put(get(a) * get(b)); }
  // As RealArith's: a prepared divisor is the divisor itself (a / b, not a · (1/b)).
  using Divisor = Value;
  UGS_HD static Divisor divisor(Value b, uint64_t& zeros) {
    zeros += get(b) == 0.0;
    return b;
  }
  UGS_HD static Value div_by(Value a, Divisor b) {
    const double d = get(b);
    return put(d == 0.0 ? 0.0 : get(a) / d);
  }
  UGS_HD static Value div(Value a, Value b, uint64_t& zeros) { return div_by(a, divisor(b, zeros)); }
  UGS_HD Value exp(Value a) const { return put(::exp(get(a))); }
  UGS_HD static Value sqrt(Value a) { return put(::sqrt(get(a))); }
  UGS_HD Value silu(Value a) const { return put(get(a) / (1.0 + ::exp(-get(a)))); }
  UGS_HD static Value from_count(int64_t n) { return put(static_cast<double>(n)); }

  UGS_HD static void acc_add(Acc& s, Value a) { s.v += get(a); }
  UGS_HD static void acc_fma(Acc& s, Value a, Value b) { s.v += get(a) * get(b); }
  UGS_HD static Value acc_value(const Acc& s) { return put(s.v); }

  // FieldArith's Dot: a float64 sum needs no fold.
  using Dot = Acc;
  static constexpr uint32_t kDotRun = 4;
  UGS_HD static void dot_add(Dot& s, Value a, Value b) { acc_fma(s, a, b); }
  UGS_HD static void dot_fold(Dot&) {}
  UGS_HD static Value dot_value(const Dot& s) { return acc_value(s); }

  UGS_HD static Value sample(uint64_t bits) { return put(RealArith::sample(bits)); }
};

// What a field's exp reads: ω and, when not null, ω's powers (exp_table.h), so that exp is two loads
// and a product instead of a power (some 30 squarings in the wide field, each a 64-bit remainder).
struct ExpPowers {
  uint32_t omega = 1;
  const uint32_t* table = nullptr;
};

// The float64 check's arithmetic has neither.
template <class A>
UGS_HD void set_exp(A& ar, ExpPowers e) {
  if constexpr (requires { ar.omega; }) {
    ar.omega = e.omega;
    ar.exp_table = e.table;
  }
}

// Calls f(arith) with the arithmetic `a` stands for (ω left at 1: callers set the fields' own).
template <class F>
decltype(auto) with_arith(Arith a, F&& f) {
  if (a == Arith::Mirage) return f(MirageArith{});
  if (a == Arith::Real) return f(RealSlotArith{});
  return f(WideArith{});
}

// ω's powers for exp in arithmetic `a` (exp_table.h); none for the float64 check's.
inline std::vector<uint32_t> exp_powers(Arith a, uint32_t omega) {
  return with_arith(a, [&](auto ar) {
    if constexpr (requires { ar.exp_table; }) return exp_table<decltype(ar)>(omega);
    return std::vector<uint32_t>{};
  });
}

}  // namespace ugs::cuda
