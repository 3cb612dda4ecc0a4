#pragma once
// One kernel op of a candidate as a block program (host side). A graph-defined kernel keeps its grid,
// loop, maps, ops and savers exactly (DESIGN §2); a predefined op becomes the block program a library
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

// Kernel op k of g, for blocks of `threads` threads (it sizes the reduction scratch).
Lowered lower_kernel_op(const KernelGraph& g, int k, int threads);

}  // namespace ugs::cuda
