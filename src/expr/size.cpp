// Sizes as prime factorizations (include/ugs/expr/size.h).
#include "ugs/expr/size.h"

#include <bit>
#include <limits>

namespace ugs::expr {
namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

}  // namespace

std::optional<Size> Size::of(int64_t n) {
  if (n < 1) return std::nullopt;
  Size s;
  auto take = [&](uint64_t p, uint32_t e) {
    if (s.count_ == kMaxPrimes || e > kMaxExponent) return false;
    s.primes_[s.count_] = static_cast<uint32_t>(p);
    s.exponents_[s.count_] = static_cast<uint8_t>(e);
    ++s.count_;
    return true;
  };
  uint64_t m = static_cast<uint64_t>(n);
  // Tensor dims are mostly powers of two, and the generator factors one per candidate op: twos first.
  if (const int twos = std::countr_zero(m); twos > 0) {
    if (!take(2, static_cast<uint32_t>(twos))) return std::nullopt;
    m >>= twos;
  }
  for (uint64_t p = 3; p * p <= m; p += 2) {
    uint32_t e = 0;
    while (m % p == 0) m /= p, ++e;
    if (e > 0 && !take(p, e)) return std::nullopt;
  }
  if (m > 1) {
    if (m > std::numeric_limits<uint32_t>::max() || !take(m, 1)) return std::nullopt;
  }
  return s;
}

std::optional<Size> Size::product(const Size& a, const Size& b) {
  Size s;
  int i = 0, j = 0;
  while (i < a.count_ || j < b.count_) {
    uint32_t p;
    uint32_t e = 0;
    if (j == b.count_ || (i < a.count_ && a.primes_[i] < b.primes_[j])) {
      p = a.primes_[i], e = a.exponents_[i++];
    } else if (i == a.count_ || b.primes_[j] < a.primes_[i]) {
      p = b.primes_[j], e = b.exponents_[j++];
    } else {
      p = a.primes_[i], e = uint32_t{a.exponents_[i++]} + b.exponents_[j++];
    }
    if (s.count_ == kMaxPrimes || e > kMaxExponent) return std::nullopt;
    s.primes_[s.count_] = p;
    s.exponents_[s.count_] = static_cast<uint8_t>(e);
    ++s.count_;
  }
  return s;
}

uint32_t Size::exponent_of(uint32_t prime) const {
  for (int i = 0; i < count_; ++i)
    if (primes_[i] == prime) return exponents_[i];
  return 0;
}

bool Size::divides(const Size& b) const {
  for (int i = 0; i < count_; ++i)
    if (b.exponent_of(primes_[i]) < exponents_[i]) return false;
  return true;
}

Size Size::quotient(const Size& d) const {
  Size s;
  for (int i = 0; i < count_; ++i) {
    const uint32_t e = exponents_[i] - d.exponent_of(primes_[i]);
    if (e == 0) continue;
    s.primes_[s.count_] = primes_[i];
    s.exponents_[s.count_] = static_cast<uint8_t>(e);
    ++s.count_;
  }
  return s;
}

std::optional<int64_t> Size::value() const {
  int64_t v = 1;
  for (int i = 0; i < count_; ++i)
    for (uint32_t k = 0; k < exponents_[i]; ++k) {
      if (v > std::numeric_limits<int64_t>::max() / primes_[i]) return std::nullopt;
      v *= primes_[i];
    }
  return v;
}

uint64_t Size::hash() const {
  uint64_t h = 0x51ed270b27f4c3a1ull;
  for (int i = 0; i < count_; ++i) h = mix(h, (uint64_t{primes_[i]} << 8) | exponents_[i]);
  return h;
}

std::string Size::to_string() const {
  if (auto v = value()) return std::to_string(*v);
  std::string s;
  for (int i = 0; i < count_; ++i) {
    if (i) s += '*';
    s += std::to_string(primes_[i]);
    if (exponents_[i] > 1) s += '^' + std::to_string(exponents_[i]);
  }
  return s;
}

}  // namespace ugs::expr
