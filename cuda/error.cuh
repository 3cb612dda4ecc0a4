#pragma once
// The one error path of the CUDA backend (STYLE §10): device functions return cudaError_t, every
// launch is followed by after_launch(), and the backend turns an error into an exception at its
// surface. Build with -DUGS_CUDA_DEBUG_SYNC to synchronize after every launch (debugging only).
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#define UGS_CUDA_TRY(expr)                       \
  do {                                           \
    const cudaError_t ugs_cuda_error_ = (expr);  \
    if (ugs_cuda_error_ != cudaSuccess) return ugs_cuda_error_; \
  } while (0)

namespace ugs::cuda {

// The launch's own error (bad configuration), or with UGS_CUDA_DEBUG_SYNC the kernel's.
inline cudaError_t after_launch([[maybe_unused]] cudaStream_t stream) {
  cudaError_t e = cudaGetLastError();
#if defined(UGS_CUDA_DEBUG_SYNC)
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
#endif
  return e;
}

inline void throw_if(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA backend: ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace ugs::cuda
