#pragma once
// A block graph built again step by step through its API (add_input, add_op, add_output) under a
// launch, its loaders reading a kernel graph's tensors: every shape, map and operand is checked as
// when it was first built. How a block graph from elsewhere (a file, a checkpoint) joins a kernel
// graph, and how a symbolic opening's block graph is made for another of its launches.
#include <span>

#include "ugs/ir/graph.h"

namespace ugs {

// `from`'s loaders, ops and savers added to `out`, cleared and launched as (grid, loop); the first
// refusal is returned. `from` and `out` may be one graph.
Verdict replay_block(const BlockGraph& from, Dim3 grid, int32_t loop, std::span<const Shape> tensors,
                     BlockGraph& out);

}  // namespace ugs
