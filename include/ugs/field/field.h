#pragma once
// The finite-field scalar of the equivalence tests (docs/design.md §3): a value is the pair (x mod p, x mod q)
// with q | p - 1, and exp maps the q-component to a power of ω, an element of order q in Z_p.
// FieldArith is the arithmetic the evaluator is instantiated with, on host and device alike.
#include <cstdint>
#include <string_view>

#include "ugs/field/modular.h"

namespace ugs {

struct FieldPair {
  uint32_t p = 0, q = 0;
  UGS_HD friend constexpr bool operator==(FieldPair a, FieldPair b) { return a.p == b.p && a.q == b.q; }
};

template <uint32_t P, uint32_t Q>
struct FieldSpec {
  static constexpr uint32_t p = P, q = Q;
  static_assert(P < (1u << 31) && Q < P && (P - 1) % Q == 0);
};
// Default: both prime, p = 2q + 1, both 3 mod 4; one test errs below 1e-7 for degree ≤ 10.
struct WideField : FieldSpec<2147481143u, 1073740571u> {
  static constexpr std::string_view name = "wide";
};
// Mirage's paper: one test bounds the error only by about 0.1.
struct MirageField : FieldSpec<227u, 113u> {
  static constexpr std::string_view name = "mirage";
};

template <class F>
struct FieldArith {
  using Field = F;
  using Value = FieldPair;
  struct Acc {
    LazySum p, q;
  };
  static constexpr std::string_view name = F::name;

  uint32_t omega = 1;  // of order q in Z_p, drawn per test
  // Optional, in the memory of the side that runs exp: ω^i at [i] and ω^(i·2^15) at [2^15 + i] for
  // i < 2^15 (exp_table.h), so that exp is two loads and a product instead of a power (the same results).
  const uint32_t* exp_table = nullptr;
  static constexpr uint32_t kExpBits = 15;
  static_assert(F::q <= (1u << (2 * kExpBits)), "exp's table splits the exponent in two halves");

  UGS_HD static constexpr Value zero() { return {0, 0}; }
  UGS_HD static constexpr Value add(Value a, Value b) { return {add_mod(a.p, b.p, F::p), add_mod(a.q, b.q, F::q)}; }
  UGS_HD static constexpr Value mul(Value a, Value b) { return {mul_mod(a.p, b.p, F::p), mul_mod(a.q, b.q, F::q)}; }
  // Division multiplies by the inverse; a zero divisor component maps to 0 and is counted. A divisor
  // shared by many elements (a row's) is prepared once.
  using Divisor = Value;
  UGS_HD static constexpr Divisor divisor(Value b, uint64_t& zeros) {
    zeros += (b.p == 0) + (b.q == 0);
    return {inv_mod(b.p, F::p), inv_mod(b.q, F::q)};
  }
  UGS_HD static constexpr Value div_by(Value a, Divisor d) { return mul(a, d); }
  UGS_HD static constexpr Value div(Value a, Value b, uint64_t& zeros) { return div_by(a, divisor(b, zeros)); }
  UGS_HD constexpr Value exp(Value a) const {
    if (exp_table)
      return {mul_mod(exp_table[a.q & ((1u << kExpBits) - 1)], exp_table[(1u << kExpBits) + (a.q >> kExpBits)], F::p),
              0};
    return {pow_mod(omega, a.q, F::p), 0};
  }
  UGS_HD static constexpr Value sqrt(Value a) { return {sqrt_mod(a.p, F::p), sqrt_mod(a.q, F::q)}; }
  UGS_HD constexpr Value silu(Value a) const { return mul(a, exp(a)); }
  UGS_HD static constexpr Value from_count(int64_t n) {
    return {static_cast<uint32_t>(n % F::p), static_cast<uint32_t>(n % F::q)};
  }

  UGS_HD static constexpr void acc_add(Acc& s, Value a) {
    s.p.add_residue(a.p, fold_of(F::p));
    s.q.add_residue(a.q, fold_of(F::q));
  }
  UGS_HD static constexpr void acc_fma(Acc& s, Value a, Value b) {
    s.p.add_product(uint64_t{a.p} * b.p, fold_of(F::p));
    s.q.add_product(uint64_t{a.q} * b.q, fold_of(F::q));
  }
  // a0 b0 + a1 b1 into s with one fold per component (LazySum::add_products).
  UGS_HD static constexpr void acc_fma2(Acc& s, Value a0, Value b0, Value a1, Value b1) {
    s.p.add_products(uint64_t{a0.p} * b0.p, uint64_t{a1.p} * b1.p, fold_of(F::p));
    s.q.add_products(uint64_t{a0.q} * b0.q, uint64_t{a1.q} * b1.q, fold_of(F::q));
  }
  UGS_HD static constexpr Value acc_value(const Acc& s) {
    return {static_cast<uint32_t>(s.p.v % F::p), static_cast<uint32_t>(s.q.v % F::q)};
  }

  // A dot product folded once per run of kDotRun products (DotSum), for the device's matmuls: a run
  // is dot_add kDotRun times, then dot_fold; fewer than kDotRun may follow the last fold.
  struct Dot {
    DotSum p, q;
  };
  static constexpr uint32_t kDotRun = run_of(F::p, 4) < run_of(F::q, 4) ? run_of(F::p, 4) : run_of(F::q, 4);
  UGS_HD static constexpr void dot_add(Dot& s, Value a, Value b) {
    s.p.add(uint64_t{a.p} * b.p);
    s.q.add(uint64_t{a.q} * b.q);
  }
  UGS_HD static constexpr void dot_fold(Dot& s) {
    s.p.fold(high_of(F::p));
    s.q.fold(high_of(F::q));
  }
  UGS_HD static constexpr Value dot_value(const Dot& s) {
    return {static_cast<uint32_t>(s.p.v % F::p), static_cast<uint32_t>(s.q.v % F::q)};
  }

  // Inputs: uniform over Z_p × Z_q from 64 random bits.
  UGS_HD static constexpr Value sample(uint64_t bits) {
    return {uniform_below(bits, F::p), uniform_below(splitmix64(bits), F::q)};
  }
  // ω = r^((p-1)/q) for the first r of the seeded stream that gives ω ≠ 1: then ω has order q.
  static constexpr uint32_t draw_omega(uint64_t seed) {
    for (uint64_t k = 0;; ++k) {
      const uint32_t r = uniform_below(splitmix64(seed + k), F::p);
      const uint32_t w = pow_mod(r, (F::p - 1) / F::q, F::p);
      if (w > 1) return w;
    }
  }
};

using WideArith = FieldArith<WideField>;
using MirageArith = FieldArith<MirageField>;

}  // namespace ugs
