#pragma once
// The block context the agents take (cuda/agent_tile_ops.h) on the device: this CUDA block's threads,
// its barrier, the hash sums added up per warp (CUB's WarpReduce) before one atomic per warp, and tile
// loads as cp.async copies into shared memory (plain loads and stores when the arena is in device memory).
#include <cuda_runtime.h>

#include <cub/warp/warp_reduce.cuh>

#include <cstdint>

#include "ugs/field/field.h"

namespace ugs::cuda {

struct DeviceCtx {
  bool async = true;  // the arena is in shared memory

  __host__ __device__ void copy([[maybe_unused]] FieldPair* dst, [[maybe_unused]] const FieldPair* src) const {
#if defined(__CUDA_ARCH__)
    if (async) {
      const auto s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
      asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(s), "l"(src) : "memory");
    } else {
      *reinterpret_cast<uint2*>(dst) = __ldg(reinterpret_cast<const uint2*>(src));
    }
#endif
  }
  __host__ __device__ void copy_pair([[maybe_unused]] FieldPair* dst, [[maybe_unused]] const FieldPair* src) const {
#if defined(__CUDA_ARCH__)
    if (async) {
      const auto s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
    } else {
      *reinterpret_cast<uint4*>(dst) = __ldg(reinterpret_cast<const uint4*>(src));
    }
#endif
  }
  __host__ __device__ void commit_loads() const {
#if defined(__CUDA_ARCH__)
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
  }
  // Waits for this thread's copies, all but the newest group when keep_newest (a barrier follows).
  __host__ __device__ void wait_loads([[maybe_unused]] bool keep_newest) const {
#if defined(__CUDA_ARCH__)
    if (keep_newest) {
      asm volatile("cp.async.wait_group 1;\n" ::: "memory");
    } else {
      asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    }
#endif
  }

  __host__ __device__ uint32_t tid() const {
#if defined(__CUDA_ARCH__)
    return threadIdx.x;
#else
    return 0;
#endif
  }
  __host__ __device__ uint32_t threads() const {
#if defined(__CUDA_ARCH__)
    return blockDim.x;
#else
    return 1;
#endif
  }
  __host__ __device__ void sync() const {
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
  }
  __host__ __device__ uint32_t warp_size() const { return 32; }
  // Lane l gets lane l + delta's value (its own past the warp's end); the whole warp calls it.
  __host__ __device__ FieldPair shfl_down(FieldPair v, [[maybe_unused]] uint32_t delta) const {
#if defined(__CUDA_ARCH__)
    return {__shfl_down_sync(0xffffffffu, v.p, delta), __shfl_down_sync(0xffffffffu, v.q, delta)};
#else
    return v;
#endif
  }
  // Every thread of the block calls it (a multiple of 32 threads).
  __host__ __device__ void add_sum([[maybe_unused]] uint64_t* slot, [[maybe_unused]] uint64_t v) const {
#if defined(__CUDA_ARCH__)
    // A full warp's reduction is shuffles only: its TempStorage is empty, so a local one does.
    using WarpSum = cub::WarpReduce<unsigned long long>;
    typename WarpSum::TempStorage none;
    const unsigned long long sum = WarpSum(none).Sum(v);  // valid in lane 0
    if ((threadIdx.x & 31) == 0) atomicAdd(reinterpret_cast<unsigned long long*>(slot), sum);
#endif
  }
};

}  // namespace ugs::cuda
