#pragma once
// Fingerprint hashes (docs/design.md §3). A tensor's hash is the sum (mod 2^64) over its elements of a mix of
// (flat index, value), finished with its shape on the host: a sum, so every order of reduction (an
// OpenMP loop, a CUB reduction on the device) gives the same bits, and the CPU and CUDA backends agree.
#include <cstdint>

#include "ugs/field/field.h"
#include "ugs/ir/shape.h"
#include "ugs/util/hash.h"

namespace ugs {

UGS_HD constexpr uint64_t element_mix(uint64_t index, FieldPair v) {
  return splitmix64(splitmix64(index) + ((uint64_t{v.p} << 32) | v.q));
}

// dims: the shape's `rank` extents (a plain array, so that device code can pass its own copy).
UGS_HD constexpr uint64_t finish_tensor_hash(uint64_t element_sum, int rank, const int32_t* dims) {
  Hasher h;
  h.add(element_sum).add(static_cast<uint64_t>(rank));
  for (int i = 0; i < rank; ++i) h.add(static_cast<uint64_t>(dims[i]));
  return h.value();
}

inline uint64_t finish_tensor_hash(uint64_t element_sum, const Shape& s) {
  return finish_tensor_hash(element_sum, s.rank, s.d.data());
}

inline uint64_t tensor_hash(const FieldPair* data, int64_t n, const Shape& s) {
  uint64_t sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += element_mix(static_cast<uint64_t>(i), data[i]);
  return finish_tensor_hash(sum, s);
}

}  // namespace ugs
