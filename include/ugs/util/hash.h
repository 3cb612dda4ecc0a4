#pragma once
// 64-bit mixing: splitmix64 (a bijection with full avalanche) chained over a stream of integers.
// Also the counter-based generator behind seeded inputs, so it is usable on host and device.
#include <cstddef>
#include <cstdint>
#include <cstring>

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
  UGS_HD constexpr explicit Hasher(uint64_t seed = 0x75677365617263ull) : state_(seed) {}
  UGS_HD constexpr Hasher& add(uint64_t v) {
    state_ = splitmix64(state_ ^ v);
    return *this;
  }
  UGS_HD constexpr uint64_t value() const { return state_; }

 private:
  uint64_t state_;
};

// A byte string's hash (keys of encoded search states): eight bytes per step, each folded through a
// 64×64→128-bit multiply (wyhash's mixer), then splitmix64. Host only.
inline uint64_t hash_bytes(const uint8_t* p, size_t n) {
  const auto fold = [](uint64_t a, uint64_t b) {
    const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
    return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
  };
  uint64_t h = fold(0x75677365617263ull ^ n, 0xA0761D6478BD642Full);
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = fold(h ^ w, 0xE7037ED1A0B428DBull);
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  return splitmix64(fold(h ^ tail, 0x8EBC6AF09C88C6E3ull));
}

}  // namespace ugs
