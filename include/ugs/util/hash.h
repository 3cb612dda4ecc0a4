#pragma once
// 64-bit mixing: splitmix64 (a bijection with full avalanche) chained over a stream of integers.
// Also the counter-based generator behind seeded inputs, so it is usable on host and device.
#include <cstdint>

#if defined(__CUDACC__)
#define UGS_HD __host__ __device__
#else
#define UGS_HD
#endif

namespace ugs {

UGS_HD constexpr uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class Hasher {
 public:
  constexpr explicit Hasher(uint64_t seed = 0x75677365617263ull) : h_(seed) {}
  constexpr Hasher& add(uint64_t v) {
    h_ = splitmix64(h_ ^ v);
    return *this;
  }
  constexpr uint64_t value() const { return h_; }

 private:
  uint64_t h_;
};

}  // namespace ugs
