// The run's inputs drawn on the device, where they stay (draw_inputs.h), each with its element sum:
// a full-size weight is 25M draws, which the host would make and then upload as 200 MB.
#include "block_ctx.cuh"
#include "dispatch.cuh"
#include "draw_inputs.h"
#include "error.cuh"

namespace ugs::cuda {
namespace {

constexpr int kDrawThreads = 256;
static_assert(kDrawThreads % 32 == 0, "add_sum's warp reduction needs whole warps");

template <class A>
__global__ void __launch_bounds__(kDrawThreads) draw_input_kernel(DrawArgs a) {
  uint64_t h = 0;
  const uint64_t step = uint64_t{gridDim.x} * kDrawThreads;
  for (uint64_t e = uint64_t{blockIdx.x} * kDrawThreads + threadIdx.x; e < a.n; e += step)
    h += draw_input_element<A>(a.stream, e, a.out);
  DeviceCtx{}.add_sum(a.sum, h);
}

}  // namespace

cudaError_t dispatch_draw_input(Arith arith, const DrawArgs& a, int ctas, cudaStream_t stream) {
  if (a.n == 0) return cudaSuccess;
  const auto blocks = static_cast<int>(std::min<uint64_t>(ctas, (a.n + kDrawThreads - 1) / kDrawThreads));
  with_arith(arith, [&](auto ar) { draw_input_kernel<decltype(ar)><<<blocks, kDrawThreads, 0, stream>>>(a); });
  return after_launch(stream);
}

}  // namespace ugs::cuda
