#pragma once
// Reduction sizes of abstract expressions (docs/design.md §4) as prime factorizations. Nested sums multiply
// their sizes, sum(i, sum(j, x)) = sum(i·j, x); as exponent vectors over primes a product is a sum of
// vectors, so the z3 encoding needs only linear integer arithmetic and sizes need not be powers of two.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace ugs::expr {

class Size {
 public:
  // A number of distinct primes and an exponent per prime that cover every tensor size in practice
  // (a number below 2^24 has at most 8 distinct primes, tensor dims have 1 to 3). A product that
  // does not fit is reported, and the expression pool turns it into its "too large" node.
  static constexpr int kMaxPrimes = 6;
  static constexpr uint32_t kMaxExponent = 255;

  Size() = default;  // 1
  // n >= 1, factored by trial division (meant for tensor dims); nullopt if n < 1 or it does not fit.
  static std::optional<Size> of(int64_t n);
  // a·b, or nullopt if it does not fit.
  static std::optional<Size> product(const Size& a, const Size& b);

  bool is_one() const { return count_ == 0; }
  int num_primes() const { return count_; }
  uint32_t prime(int i) const { return primes_[i]; }
  uint32_t exponent(int i) const { return exponents_[i]; }
  uint32_t exponent_of(uint32_t prime) const;
  bool divides(const Size& b) const;   // this | b
  Size quotient(const Size& d) const;  // this / d; requires d | this
  // The value, if it fits in int64.
  std::optional<int64_t> value() const;
  uint64_t hash() const;
  std::string to_string() const;  // "240", or "2^70*3" when the value does not fit in int64

  friend bool operator==(const Size&, const Size&) = default;

 private:
  std::array<uint32_t, kMaxPrimes> primes_{};    // ascending primes; unused slots 0
  std::array<uint8_t, kMaxPrimes> exponents_{};  // their exponents, >= 1; unused slots 0
  uint8_t count_ = 0;
};

}  // namespace ugs::expr
