#pragma once
// What one block graph (one kernel, docs/design.md §2) moves and computes, summed over its grid:
//   device memory  each loader reads its tensor once per block along every axis that does not split
//                  it: bytes(tensor) x the product of the grid sizes of its φ axes. A tile with fmap φ
//                  is loaded once and stays in shared memory across the loop (the 96 KiB budget
//                  already counts it as resident), so the loop does not multiply its loads. Each saver
//                  writes its kernel tensor once.
//   shared memory  a loaded tile is written once per load and read once per run of each op that reads
//                  it; an op's result that some op reads regionally (edges.h) is written once per run
//                  (an accumulator once, its final value) and read once per such reader's run; rms_norm
//                  also passes each row's rms through shared memory. Runs: ops before the loop's
//                  accumulators and the accumulators run every iteration, ops after them once.
//   registers      local edges: the operand's bytes once per reader's run (reported, not timed).
//   flops          matmul 2mnk on tensor cores; other ops as eval/op_count.h counts them; per run.
#include "ugs/cost/cost.h"

namespace ugs {

KernelCounts block_counts(const KernelGraph& graph, const BlockGraph& bg, int elem_bytes);

}  // namespace ugs
