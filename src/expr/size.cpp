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
    if (s.n_ == kMaxPrimes || e > kMaxExponent) return false;
    s.p_[s.n_] = static_cast<uint32_t>(p);
    s.e_[s.n_] = static_cast<uint8_t>(e);
    ++s.n_;
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
  while (i < a.n_ || j < b.n_) {
    uint32_t p;
    uint32_t e = 0;
    if (j == b.n_ || (i < a.n_ && a.p_[i] < b.p_[j])) {
      p = a.p_[i], e = a.e_[i++];
    } else if (i == a.n_ || b.p_[j] < a.p_[i]) {
      p = b.p_[j], e = b.e_[j++];
    } else {
      p = a.p_[i], e = uint32_t{a.e_[i++]} + b.e_[j++];
    }
    if (s.n_ == kMaxPrimes || e > kMaxExponent) return std::nullopt;
    s.p_[s.n_] = p;
    s.e_[s.n_] = static_cast<uint8_t>(e);
    ++s.n_;
  }
  return s;
}

uint32_t Size::exponent_of(uint32_t prime) const {
  for (int i = 0; i < n_; ++i)
    if (p_[i] == prime) return e_[i];
  return 0;
}

bool Size::divides(const Size& b) const {
  for (int i = 0; i < n_; ++i)
    if (b.exponent_of(p_[i]) < e_[i]) return false;
  return true;
}

Size Size::quotient(const Size& d) const {
  Size s;
  for (int i = 0; i < n_; ++i) {
    const uint32_t e = e_[i] - d.exponent_of(p_[i]);
    if (e == 0) continue;
    s.p_[s.n_] = p_[i];
    s.e_[s.n_] = static_cast<uint8_t>(e);
    ++s.n_;
  }
  return s;
}

std::optional<int64_t> Size::value() const {
  int64_t v = 1;
  for (int i = 0; i < n_; ++i)
    for (uint32_t k = 0; k < e_[i]; ++k) {
      if (v > std::numeric_limits<int64_t>::max() / p_[i]) return std::nullopt;
      v *= p_[i];
    }
  return v;
}

uint64_t Size::hash() const {
  uint64_t h = 0x51ed270b27f4c3a1ull;
  for (int i = 0; i < n_; ++i) h = mix(h, (uint64_t{p_[i]} << 8) | e_[i]);
  return h;
}

std::string Size::to_string() const {
  if (auto v = value()) return std::to_string(*v);
  std::string s;
  for (int i = 0; i < n_; ++i) {
    if (i) s += '*';
    s += std::to_string(p_[i]);
    if (e_[i] > 1) s += '^' + std::to_string(e_[i]);
  }
  return s;
}

}  // namespace ugs::expr
