#pragma once
// One kernel op of a candidate as a block program (host side). A graph-defined kernel keeps its grid,
// loop, maps, ops and savers exactly (docs/design.md §2); a predefined op becomes the block program a library
// kernel would be: its output split into tiles over a grid with one axis per 4-D dim (a matmul or a
// long reduction also loops over the contracted dim into an accumulator). The field is exact, so any
// split computes the same values as the CPU evaluator's loops.
#include <cstdint>

#include "ugs/cuda/program.h"
#include "ugs/ir/graph.h"

namespace ugs::cuda {

struct Lowered {
  BlockProgram prog;
  int32_t src[kMaxProgIo] = {};  // kernel tensor of each loader
  int32_t dst[kMaxProgIo] = {};  // kernel tensor of each saver
};

// Kernel op k of `graph`, for blocks of `threads` threads (it sizes the reduction scratch).
Lowered lower_kernel_op(const KernelGraph& graph, int k, int threads);

// Kernel op k of g as far as lower_kernel_op reads it: the op (its block graph, if any), the indices
// and shapes of its operand and result tensors. Ops that are the same here lower to the same Lowered,
// so a plan lowers each distinct one once (thousands of candidates share their ops).
bool same_lowering(const KernelGraph& a, int ka, const KernelGraph& b, int kb);
// A hash of what same_lowering compares: equal for ops it calls the same.
uint64_t lowering_hash(const KernelGraph& graph, int k);

}  // namespace ugs::cuda
