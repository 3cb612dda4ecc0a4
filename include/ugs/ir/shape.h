#pragma once
// Row-major tensor shapes of rank 1..4. Internally every shape is also read as 4-D with leading 1s
// (`dim4`), so loops and strides have one form whatever the rank.
#include <array>
#include <cstdint>
#include <string>

namespace ugs {

inline constexpr int kMaxRank = 4;
inline constexpr int32_t kMaxDim = 1 << 24;
inline constexpr int64_t kMaxElems = int64_t{1} << 32;  // of one kernel tensor

struct Shape {
  int8_t rank = 0;
  std::array<int32_t, kMaxRank> d{1, 1, 1, 1};

  static Shape of(std::initializer_list<int32_t> dims) {
    Shape s;
    for (int32_t x : dims) s.d[s.rank++] = x;
    return s;
  }
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= d[i];
    return n;
  }
  int32_t last() const { return d[rank - 1]; }
  // Dimension i of the shape padded to 4-D with leading ones.
  int32_t dim4(int i) const {
    int j = i - (kMaxRank - rank);
    return j < 0 ? 1 : d[j];
  }
  // Converts a dim index of this shape into the padded 4-D index.
  int to4(int dim) const { return dim + (kMaxRank - rank); }

  friend bool operator==(const Shape& a, const Shape& b) {
    if (a.rank != b.rank) return false;
    for (int i = 0; i < a.rank; ++i)
      if (a.d[i] != b.d[i]) return false;
    return true;
  }
};

// A shape a kernel tensor may have: rank 1 to 4, each dim from 1 to kMaxDim, at most kMaxElems elements.
inline bool valid_shape(const Shape& s) {
  if (s.rank < 1 || s.rank > kMaxRank) return false;
  for (int i = 0; i < s.rank; ++i)
    if (s.d[i] < 1 || s.d[i] > kMaxDim) return false;
  return s.numel() <= kMaxElems;
}

// "[2, 4096]"
std::string to_string(const Shape& s);

}  // namespace ugs
