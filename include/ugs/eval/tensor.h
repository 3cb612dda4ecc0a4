#pragma once
// A dense row-major tensor of scalars (field pairs or doubles), addressed as 4-D with leading ones.
#include <array>
#include <cstdint>
#include <vector>

#include "ugs/ir/shape.h"

namespace ugs {

using Index4 = std::array<int64_t, 4>;

// Row-major strides of the shape padded to 4-D.
inline Index4 strides4(const Shape& s) {
  Index4 st{};
  int64_t n = 1;
  for (int i = 3; i >= 0; --i) {
    st[i] = n;
    n *= s.dim4(i);
  }
  return st;
}

template <class V>
struct Tensor {
  Shape shape;
  std::vector<V> data;

  Tensor() = default;
  explicit Tensor(const Shape& s) : shape(s), data(static_cast<size_t>(s.numel())) {}
  // Re-shapes in place, reusing the allocation (scratch tiles).
  void reset(const Shape& s) {
    shape = s;
    data.resize(static_cast<size_t>(s.numel()));
  }
  int64_t numel() const { return static_cast<int64_t>(data.size()); }
};

}  // namespace ugs
