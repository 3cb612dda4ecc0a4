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
      cudaError_t status;
      if constexpr (kPinned) {
        status = cudaMallocHost(&data_, want);
      } else {
        status = cudaMalloc(&data_, want);
      }
      if (status == cudaSuccess) {
        cap_ = want;
        return status;
      }
      cudaGetLastError();  // an allocation failure is not sticky: clear it
      data_ = nullptr;
      if (want == bytes) return status;
    }
    return cudaErrorMemoryAllocation;
  }
  template <class T>
  T* as(size_t byte_offset = 0) const {
    return reinterpret_cast<T*>(static_cast<char*>(data_) + byte_offset);
  }
  size_t capacity() const { return cap_; }

 private:
  void release() {
    if (data_ && kPinned) cudaFreeHost(data_);
    if (data_ && !kPinned) cudaFree(data_);
    data_ = nullptr;
    cap_ = 0;
  }
  void* data_ = nullptr;
  size_t cap_ = 0;
};

using DeviceBuffer = GrowBuffer<false>;
using PinnedBuffer = GrowBuffer<true>;

}  // namespace ugs::cuda
