// Function classes on the device (function_classes.h): a chunk's keys from the element sums its
// savers made, where they are; then, over the whole batch, CUB's merge sort and flagged select, so
// that only one item per class comes back to the host.
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_select.cuh>

#include "dispatch.cuh"
#include "error.cuh"

namespace ugs::cuda {
namespace {

constexpr int kKeyThreads = 128;

__global__ void __launch_bounds__(kKeyThreads) function_keys_kernel(KeyArgs a) {
  const uint32_t i = blockIdx.x * kKeyThreads + threadIdx.x;
  if (i < a.n) key_item(a, i);
}

__global__ void flag_classes_kernel(const ClassItem* sorted, uint8_t* flags, uint32_t n) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = begins_class(sorted, i);
}

}  // namespace

cudaError_t dispatch_function_keys(const KeyArgs& a, cudaStream_t stream) {
  if (a.n == 0) return cudaSuccess;
  function_keys_kernel<<<(a.n + kKeyThreads - 1) / kKeyThreads, kKeyThreads, 0, stream>>>(a);
  return after_launch(stream);
}

cudaError_t classify_temp_bytes(uint32_t n, size_t* bytes) {
  size_t sort = 0, select = 0;
  UGS_CUDA_TRY(cub::DeviceMergeSort::SortKeysCopy(nullptr, sort, static_cast<const ClassItem*>(nullptr),
                                                  static_cast<ClassItem*>(nullptr), n, ClassItemLess{}));
  UGS_CUDA_TRY(cub::DeviceSelect::Flagged(nullptr, select, static_cast<const ClassItem*>(nullptr),
                                          static_cast<const uint8_t*>(nullptr), static_cast<ClassItem*>(nullptr),
                                          static_cast<int64_t*>(nullptr), n));
  *bytes = std::max(sort, select);
  return cudaSuccess;
}

cudaError_t dispatch_classify(const ClassifyArgs& a, size_t temp_bytes, cudaStream_t stream) {
  if (a.n == 0) return cudaMemsetAsync(a.count, 0, sizeof(int64_t), stream);
  size_t bytes = temp_bytes;
  UGS_CUDA_TRY(cub::DeviceMergeSort::SortKeysCopy(a.temp, bytes, a.items, a.sorted, a.n, ClassItemLess{}, stream));
  constexpr uint32_t kFlagThreads = 256;
  flag_classes_kernel<<<(a.n + kFlagThreads - 1) / kFlagThreads, kFlagThreads, 0, stream>>>(a.sorted, a.flags, a.n);
  UGS_CUDA_TRY(after_launch(stream));
  bytes = temp_bytes;
  // The types of classify_temp_bytes' query, so that its size holds.
  return cub::DeviceSelect::Flagged(a.temp, bytes, static_cast<const ClassItem*>(a.sorted),
                                    static_cast<const uint8_t*>(a.flags), a.best, a.count, a.n, stream);
}

}  // namespace ugs::cuda
