// Device discovery. Without a GPU, cudaGetDeviceCount fails (no driver): that is "no device".
#include <cuda_runtime.h>

#include <string>

#include "ugs/cuda/device.h"

namespace ugs::cuda {

bool compiled() { return true; }

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls start clean
    return 0;
  }
  return n;
}

std::string device_description() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return std::string("none (") + cudaGetErrorString(e) + ")";
  }
  if (n == 0) return "none (no CUDA device)";
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return "unknown device";
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ")";
}

}  // namespace ugs::cuda
