#pragma once
// The CUDA backend's work run on the host (tests and debugging without a GPU): the same lowering,
// plan and interpreter agent as on the device, each CUDA block emulated by `threads` host threads
// with a barrier for __syncthreads. Slow; bit-identical to the CPU backend when the device code is.
#include <cstdint>
#include <memory>

#include "ugs/eval/backend.h"

namespace ugs::cuda {

// For the run of `program` in `field` from `seed`, whose setup it makes as the device does (inputs
// drawn where they stay, the program run through the plan). threads: 1 to the device's block size
// (256); budget_elems: the tensors of one chunk of a batch.
std::unique_ptr<Backend> make_emulated_backend(const KernelGraph& program, FieldKind field, uint64_t seed, int threads,
                                               uint64_t budget_elems = uint64_t{1} << 26);

// The float64 check's evaluator (cuda::make_float_evaluator) run by host threads.
std::unique_ptr<FloatEvaluator> make_emulated_float_evaluator(const KernelGraph& program, uint64_t seed, int threads);

}  // namespace ugs::cuda
