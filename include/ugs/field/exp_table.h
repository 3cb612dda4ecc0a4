#pragma once
// The powers of ω that FieldArith::exp reads instead of raising ω to a power per element:
// exp(x) = ω^lo · ω^(hi·2^15) with x's q-component split in two 15-bit halves. 64 thousand products
// to build, once per ω (a run's fingerprints, each confirmation test).
#include <cstdint>
#include <vector>

#include "ugs/field/field.h"

namespace ugs {

template <class A>
std::vector<uint32_t> exp_table(uint32_t omega) {
  constexpr uint32_t half = 1u << A::kExpBits, p = A::Field::p;
  std::vector<uint32_t> t(2 * half);
  uint32_t w = 1;
  for (uint32_t i = 0; i < half; ++i, w = mul_mod(w, omega, p)) t[i] = w;  // w ends at ω^half
  uint32_t v = 1;
  for (uint32_t i = 0; i < half; ++i, v = mul_mod(v, w, p)) t[half + i] = v;
  return t;
}

}  // namespace ugs
