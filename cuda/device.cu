// Device discovery. Without a GPU, cudaGetDeviceCount fails (no driver): that is "no device".
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

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

double measured_copy_bandwidth() {
  if (device_count() == 0) return 0;
  constexpr size_t kBytes = size_t{1} << 30;  // far past the L2: the copy streams through HBM
  char *a = nullptr, *b = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  std::vector<float> ms;
  bool ok = cudaMalloc(&a, kBytes) == cudaSuccess && cudaMalloc(&b, kBytes) == cudaSuccess &&
            cudaMemset(a, 1, kBytes) == cudaSuccess && cudaEventCreate(&start) == cudaSuccess &&
            cudaEventCreate(&stop) == cudaSuccess;
  for (int r = 0; ok && r < 11; ++r) {
    float t = 0;
    ok = cudaEventRecord(start) == cudaSuccess && cudaMemcpy(b, a, kBytes, cudaMemcpyDeviceToDevice) == cudaSuccess &&
         cudaEventRecord(stop) == cudaSuccess && cudaEventSynchronize(stop) == cudaSuccess &&
         cudaEventElapsedTime(&t, start, stop) == cudaSuccess;
    if (r > 0) ms.push_back(t);  // the first copy warms up
  }
  if (start) cudaEventDestroy(start);
  if (stop) cudaEventDestroy(stop);
  cudaFree(a);
  cudaFree(b);
  cudaGetLastError();
  if (!ok || ms.empty()) return 0;
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return 2.0 * kBytes / (ms[ms.size() / 2] * 1e-3);
}

}  // namespace ugs::cuda
