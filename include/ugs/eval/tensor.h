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

// What an op reads: a tensor, or a box of one (a block's tile of an input), by its first element and
// 4-D strides. A box's last dim is contiguous, as a row of a dense tensor is. A dense tensor is a view
// of itself, so every op reads through this and a loaded tile need not be copied.
template <class V>
struct TensorView {
  const V* data = nullptr;
  Shape shape;
  Index4 strides{};

  TensorView() = default;
  TensorView(const V* first, const Shape& s, const Index4& st) : data(first), shape(s), strides(st) {}
  // Implicit: wherever a view is read, a whole tensor may be passed.
  TensorView(const Tensor<V>& t) : data(t.data.data()), shape(t.shape), strides(strides4(t.shape)) {}
  bool dense() const { return strides == strides4(shape); }
};

}  // namespace ugs
