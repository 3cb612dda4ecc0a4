// Output comparison on the device: per chunk of an output, the hash first (the element sums the
// savers made), then every element against the program's resident output (CUB's layering: agent,
// thin kernel, dispatch).
#include "agent_tile_ops.h"
#include "dispatch.cuh"
#include "error.cuh"
#include "tuning.h"

namespace ugs::cuda {
namespace {

struct CompareAgent {
  const CompareArgs& args;

  __device__ const CompareItem& item_of(uint64_t chunk) const {
    uint32_t lo = 0, hi = args.n_items;
    while (hi - lo > 1) {
      const uint32_t mid = (lo + hi) / 2;
      if (args.items[mid].first_chunk <= chunk) lo = mid; else hi = mid;
    }
    return args.items[lo];
  }

  // Every thread of the block calls it with the same chunk.
  __device__ void run(uint64_t chunk) const {
    const CompareItem& it = item_of(chunk);
    if (args.sums[it.slot] != it.want_sum) {  // hashes differ: no need to look at the elements
      if (threadIdx.x == 0) args.match[it.graph] = 0;
      return;
    }
    const uint64_t e0 = (chunk - it.first_chunk) * tuning::kCompareChunk;
    const uint64_t e1 = min(it.numel, e0 + tuning::kCompareChunk);
    bool differ = false;
    for (uint64_t e = e0 + threadIdx.x; e < e1; e += blockDim.x) differ |= !(ld_global(it.got + e) == ld_global(it.want + e));
    if (__syncthreads_or(differ) && threadIdx.x == 0) args.match[it.graph] = 0;
  }
};

__global__ void __launch_bounds__(tuning::kCompareThreads) compare_kernel(CompareArgs args) {
  const CompareAgent agent{args};
  for (uint64_t c = blockIdx.x; c < args.chunks; c += gridDim.x) agent.run(c);
}

}  // namespace

cudaError_t dispatch_compare(const CompareArgs& args, int ctas, cudaStream_t stream) {
  if (args.chunks == 0) return cudaSuccess;
  compare_kernel<<<ctas, tuning::kCompareThreads, 0, stream>>>(args);
  return after_launch(stream);
}

}  // namespace ugs::cuda
