#pragma once
// Arithmetic modulo a prime below 2^31, written once for host and device (docs/design.md §3).
#include <cstdint>

#include "ugs/util/hash.h"  // UGS_HD

namespace ugs {

UGS_HD constexpr uint32_t add_mod(uint32_t a, uint32_t b, uint32_t m) {
  const uint32_t s = a + b;  // a, b < m < 2^31: no overflow
  return s >= m ? s - m : s;
}

UGS_HD constexpr uint32_t mul_mod(uint32_t a, uint32_t b, uint32_t m) {
  return static_cast<uint32_t>(static_cast<uint64_t>(a) * b % m);
}

UGS_HD constexpr uint32_t pow_mod(uint32_t base, uint64_t e, uint32_t m) {
  uint64_t r = 1 % m, b = base % m;
  while (e) {
    if (e & 1) r = r * b % m;
    b = b * b % m;
    e >>= 1;
  }
  return static_cast<uint32_t>(r);
}

// Inverse by Fermat; 0 has none and maps to 0 (callers count it).
UGS_HD constexpr uint32_t inv_mod(uint32_t a, uint32_t m) { return a == 0 ? 0 : pow_mod(a, m - 2, m); }

// Tonelli–Shanks for m ≡ 1 (mod 4): the smaller of the two roots, 0 for a non-residue.
UGS_HD constexpr uint32_t tonelli_shanks(uint32_t a, uint32_t m) {
  if (a == 0) return 0;
  if (pow_mod(a, (m - 1) / 2, m) != 1) return 0;
  uint32_t q = m - 1, s = 0;
  while ((q & 1) == 0) {
    q >>= 1;
    ++s;
  }
  uint32_t z = 2;
  while (pow_mod(z, (m - 1) / 2, m) != m - 1) ++z;
  uint32_t c = pow_mod(z, q, m), t = pow_mod(a, q, m), r = pow_mod(a, (q + 1) / 2, m);
  while (t != 1) {
    uint32_t i = 0, t2 = t;
    while (t2 != 1) {
      t2 = mul_mod(t2, t2, m);
      ++i;
    }
    uint32_t b = c;
    for (uint32_t j = 0; j + 1 < s - i; ++j) b = mul_mod(b, b, m);
    s = i;
    c = mul_mod(b, b, m);
    t = mul_mod(t, c, m);
    r = mul_mod(r, b, m);
  }
  return r < m - r ? r : m - r;
}

// The fixed deterministic square root of docs/design.md §3: y^((m+1)/4) when m ≡ 3 (mod 4).
UGS_HD constexpr uint32_t sqrt_mod(uint32_t a, uint32_t m) {
  return (m & 3) == 3 ? pow_mod(a, (m + 1) / 4, m) : tonelli_shanks(a, m);
}

// A sum of products mod m with one reduction per overflow threat instead of one per term: the
// running value stays below 2^63, and any product of residues is below 2^62.
struct LazySum {
  uint64_t v = 0;
  // A product of residues, without a branch: in the wide field the fold is then due every few terms
  // at random, and a branch there is mispredicted often enough to slow CPU matmuls down several times
  // against Mirage's field.
  UGS_HD constexpr void add_product(uint64_t x, uint64_t fold) {
    v += x;
    v -= fold & (uint64_t{0} - (v >> 63));
  }
  // Two products, one fold (a matmul's consecutive k): each is at most (m-1)^2 < 2^62 - 2^32, so v
  // plus both stays below 2^64, and one fold takes it below 2^63 - 2^34 + m < 2^63 again.
  UGS_HD constexpr void add_products(uint64_t x0, uint64_t x1, uint64_t fold) { add_product(x0 + x1, fold); }
  // A residue (below 2^31): the fold is due once in 2^32 terms, which a branch predicts, and a sum
  // into one accumulator keeps its one-cycle chain.
  UGS_HD constexpr void add_residue(uint32_t x, uint64_t fold) {
    v += x;
    if (v >= (uint64_t{1} << 63)) v -= fold;
  }
};
// The largest multiple of m not above 2^63, subtracted by LazySum's adds.
UGS_HD constexpr uint64_t fold_of(uint32_t m) { return ((uint64_t{1} << 63) / m) * m; }

// A dot product mod m for the device's matmuls, which are issue-bound: products are added raw (one
// multiply-add each on a GPU) and a run of them is folded at once (a shift, a mask and a multiply-add)
// where LazySum spends five instructions a product. fold maps v to (v mod 2^62) + (v div 2^62) *
// (2^62 mod m), below 2^62 + 2^33; run_of(m) products of residues added after it stay below 2^64.
struct DotSum {
  uint64_t v = 0;
  UGS_HD constexpr void add(uint64_t product) { v += product; }
  UGS_HD constexpr void fold(uint64_t high) {
    constexpr uint64_t low_mask = (uint64_t{1} << 62) - 1;
    v = (v & low_mask) + (v >> 62) * high;
  }
};
// 2^62 mod m, DotSum::fold's multiplier.
UGS_HD constexpr uint64_t high_of(uint32_t m) { return (uint64_t{1} << 62) % m; }
// The products DotSum may take between two folds, at most `cap`: 3 for moduli above about 0.87·2^31
// (the wide field's p), more below.
UGS_HD constexpr uint32_t run_of(uint32_t m, uint32_t cap) {
  const uint64_t top = uint64_t{m - 1} * (m - 1);
  const uint64_t after_fold = (uint64_t{1} << 62) - 1 + 3 * uint64_t{m - 1};
  const uint64_t room = ~uint64_t{0} - after_fold;
  return top == 0 || room / top >= cap ? cap : static_cast<uint32_t>(room / top);
}

// Uniform in [0, m) from 64 random bits (multiply-shift; bias below 2^-32).
UGS_HD constexpr uint32_t uniform_below(uint64_t bits, uint32_t m) {
  return static_cast<uint32_t>(((bits >> 32) * m) >> 32);
}

}  // namespace ugs
