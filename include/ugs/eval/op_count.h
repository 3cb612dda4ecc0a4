#pragma once
// Scalar operations one evaluation performs, counted from shapes alone: a multiply-add is 2, every
// other element-wise op (exp and sqrt included) is 1 per output element, a reduction is 1 per input
// element, rms_norm is 3 per element. Used to report field ops per second and device bounds.
#include <cstdint>

#include "ugs/ir/graph.h"

namespace ugs {

int64_t scalar_ops(const Op& op, const Shape& a, const Shape& out);
int64_t scalar_ops(const BlockGraph& bg);
int64_t scalar_ops(const KernelGraph& graph);

}  // namespace ugs
