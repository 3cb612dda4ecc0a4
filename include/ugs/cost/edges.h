#pragma once
// How an op reads an operand produced in the same kernel, and so where that data lives (AStitch's
// stitching schemes, docs/design.md §8). One rule for block graphs and for the plans' fused kernels:
//   element-wise op, operand of the result's shape  -> local    (one-to-one: the thread that made each
//                                                                element uses it, in registers)
//   element-wise op, broadcast operand              -> regional (one-to-many: through shared memory)
//   reduction, accumulator, rms_norm                -> local    (each thread folds the elements it made;
//                                                                only per-row partials cross threads)
//   matmul                                          -> regional (every thread reads whole tile rows
//                                                                and columns: a shared tile)
// Operands from device memory (kernel inputs, other kernels' results) are global; a block graph's
// loaded tiles land in shared memory, so what reads them reads regionally.
#include <cstdint>
#include <string_view>

#include "ugs/cost/cost.h"
#include "ugs/ir/op.h"
#include "ugs/ir/shape.h"

namespace ugs {

enum class Access : uint8_t { Elementwise, Reduction, Tile };

Access access_of(OpKind k);
EdgeClass classify(Access a, const Shape& operand, const Shape& result);

}  // namespace ugs
