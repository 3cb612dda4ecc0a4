// The interpreter kernel: a thin wrapper that walks its block's share of a launch's work items,
// keeping the current job and program in shared memory, and runs the agent on each (STYLE §10).
#include "agent_interpret.h"
#include "block_ctx.cuh"
#include "dispatch.cuh"
#include "error.cuh"
#include "tuning.h"

namespace ugs::cuda {
namespace {

template <class T>
__device__ void copy_words(T* dst, const T* src) {
  static_assert(sizeof(T) % 4 == 0);
  auto* d = reinterpret_cast<uint32_t*>(dst);
  const auto* s = reinterpret_cast<const uint32_t*>(src);
  for (uint32_t i = threadIdx.x; i < sizeof(T) / 4; i += blockDim.x) d[i] = s[i];
}

// The job whose items contain item w: the last with first_item <= w.
__device__ uint32_t find_job(const Job* jobs, uint32_t n, uint64_t w) {
  uint32_t lo = 0, hi = n;
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (jobs[mid].first_item <= w) lo = mid; else hi = mid;
  }
  return lo;
}

static_assert(tuning::kThreads % 32 == 0, "DeviceCtx::add_sum's warp reduction needs whole warps");

// kOnChip: the arena is the block's dynamic shared memory, else args.global_arena's share. Two kernels
// rather than a pointer chosen at run time, so that the compiler knows each arena's memory: 32-bit
// shared loads and stores on chip instead of 64-bit generic ones.
template <class A, bool kOnChip>
__global__ void __launch_bounds__(tuning::kThreads, tuning::kMinBlocksPerSm) interpret_kernel(InterpretArgs args, A ar) {
  extern __shared__ uint4 dynamic_arena[];  // 16-byte aligned: pairs of elements move as one
  __shared__ uint4 program_words[(sizeof(BlockProgram) + 15) / 16];
  __shared__ uint4 job_words[(sizeof(Job) + 15) / 16];
  auto& program = *reinterpret_cast<BlockProgram*>(program_words);
  auto& job = *reinterpret_cast<Job*>(job_words);
  FieldPair* arena = kOnChip ? reinterpret_cast<FieldPair*>(dynamic_arena)
                             : args.global_arena + uint64_t{blockIdx.x} * args.arena;
  const uint64_t share = (args.items + gridDim.x - 1) / gridDim.x;
  const uint64_t w0 = blockIdx.x * share, w1 = min(args.items, w0 + share);
  if (w0 >= w1) return;
  DeviceCtx cx;
  cx.async = kOnChip;
  uint32_t j = find_job(args.jobs, args.n_jobs, w0), loaded_job = ~0u, loaded_program = ~0u;
  for (uint64_t w = w0; w < w1; ++w) {
    while (j + 1 < args.n_jobs && args.jobs[j + 1].first_item <= w) ++j;
    if (j != loaded_job) {
      copy_words(&job, &args.jobs[j]);
      const uint32_t p = args.jobs[j].program;
      if (p != loaded_program) copy_words(&program, &args.programs[p]);
      loaded_job = j;
      loaded_program = p;
      __syncthreads();
    }
    const InterpretAgent<A, DeviceCtx> agent{cx, ar, program, job, arena, args.sums};
    agent.run(w - job.first_item);
  }
}

template <class A>
cudaError_t prepare_one(uint32_t max_dynamic) {
  return cudaFuncSetAttribute(interpret_kernel<A, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(max_dynamic));
}

}  // namespace

cudaError_t interpret_prepare(int device, uint32_t* max_dynamic_smem) {
  int optin = 0;
  UGS_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes fa{};
  UGS_CUDA_TRY(cudaFuncGetAttributes(&fa, interpret_kernel<WideArith, true>));
  const int fixed = int(fa.sharedSizeBytes);
  *max_dynamic_smem = optin > fixed ? uint32_t(optin - fixed) : 0u;
  UGS_CUDA_TRY(prepare_one<WideArith>(*max_dynamic_smem));
  UGS_CUDA_TRY(prepare_one<MirageArith>(*max_dynamic_smem));
  return prepare_one<RealSlotArith>(*max_dynamic_smem);
}

cudaError_t interpret_blocks_per_sm(Arith arith, size_t dynamic_smem, int* blocks) {
  return with_arith(arith, [&](auto ar) {
    using A = decltype(ar);
    return dynamic_smem ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, interpret_kernel<A, true>,
                                                                        tuning::kThreads, dynamic_smem)
                        : cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, interpret_kernel<A, false>,
                                                                        tuning::kThreads, 0);
  });
}

cudaError_t dispatch_interpret(Arith arith, ExpPowers exp, const InterpretArgs& args, int ctas, size_t dynamic_smem,
                               cudaStream_t stream) {
  if (args.items == 0) return cudaSuccess;
  with_arith(arith, [&](auto ar) {
    set_exp(ar, exp);
    if (args.global_arena)
      interpret_kernel<decltype(ar), false><<<ctas, tuning::kThreads, 0, stream>>>(args, ar);
    else
      interpret_kernel<decltype(ar), true><<<ctas, tuning::kThreads, dynamic_smem, stream>>>(args, ar);
  });
  return after_launch(stream);
}

}  // namespace ugs::cuda
