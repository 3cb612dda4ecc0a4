#pragma once
// The abstract expression of an op's output from its operands' (docs/design.md §4), one op at a time:
//   matmul(A, B) -> sum(k, A*B), k the contracted length (a tile's k inside a block graph)
//   reduce_sum(dim) -> sum(len, x);  square(x) -> x*x;  rms_norm(x) -> x / rms(n, x), n the last dim
//   reduce_sum_to(dim, c) -> sum(len / c, x);  accum_sum -> sum(F, x);  accum_sum_lastdim -> sum(F*last, x)
//   accum_sum_lastdim_to(c) -> sum(F*last / c, x);  accum_rms_lastdim -> rms(F*last, x)
//   add, mul, div, exp, sqrt, silu -> themselves
// Loaders and savers pass their tensor's expression unchanged.
#include <span>
#include <vector>

#include "ugs/expr/expr.h"
#include "ugs/ir/graph.h"

namespace ugs::expr {

// Both are thread-safe; each thread keeps its latest answers in front of the pool's memo.
// A predefined op at kernel level. Throws std::invalid_argument for a block-only op or a block graph.
ExprId kernel_op_expr(ExprPool& pool, const Op& op, std::span<const ExprId> operands,
                      std::span<const Shape> operand_shapes);
// A block op (tile shapes), accumulators with the block graph's loop range `loop`.
ExprId block_op_expr(ExprPool& pool, const Op& op, std::span<const ExprId> operands,
                     std::span<const Shape> operand_shapes, int32_t loop);

// Whole-graph helpers (tests, a search's initial state and targets):
// one expression per kernel tensor, inputs as var(0), var(1), ...
std::vector<ExprId> kernel_tensor_exprs(ExprPool& pool, const KernelGraph& graph);
// the expressions of `graph`'s outputs, in order: a program's are a search's targets.
std::vector<ExprId> output_exprs(ExprPool& pool, const KernelGraph& graph);
// one expression per tile of a block graph, given the expressions of the kernel tensors it loads.
std::vector<ExprId> block_tile_exprs(ExprPool& pool, const BlockGraph& bg, std::span<const ExprId> kernel_exprs);

}  // namespace ugs::expr
