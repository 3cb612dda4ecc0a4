#pragma once
// The backend's memory pool: grow-only buffers, reallocated only to grow (never per candidate).
// Callers reserve everything a chunk needs before they enqueue its work.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

namespace ugs::cuda {

template <bool kPinned>
class GrowBuffer {
 public:
  GrowBuffer() = default;
  GrowBuffer(const GrowBuffer&) = delete;
  GrowBuffer& operator=(const GrowBuffer&) = delete;
  ~GrowBuffer() { release(); }

  // At least `bytes`; grows by half again at least, falling back to the exact size.
  cudaError_t reserve(size_t bytes) {
    if (bytes <= cap_) return cudaSuccess;
    const size_t roomy = std::max(bytes, cap_ + cap_ / 2);
    release();
    for (size_t want : {roomy, bytes}) {
      cudaError_t e;
      if constexpr (kPinned) {
        e = cudaMallocHost(&p_, want);
      } else {
        e = cudaMalloc(&p_, want);
      }
      if (e == cudaSuccess) {
        cap_ = want;
        return e;
      }
      cudaGetLastError();  // an allocation failure is not sticky: clear it
      p_ = nullptr;
      if (want == bytes) return e;
    }
    return cudaErrorMemoryAllocation;
  }
  template <class T>
  T* as(size_t byte_offset = 0) const {
    return reinterpret_cast<T*>(static_cast<char*>(p_) + byte_offset);
  }
  size_t capacity() const { return cap_; }

 private:
  void release() {
    if (p_ && kPinned) cudaFreeHost(p_);
    if (p_ && !kPinned) cudaFree(p_);
    p_ = nullptr;
    cap_ = 0;
  }
  void* p_ = nullptr;
  size_t cap_ = 0;
};

using DeviceBuffer = GrowBuffer<false>;
using PinnedBuffer = GrowBuffer<true>;

}  // namespace ugs::cuda
