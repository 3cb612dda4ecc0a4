#include "ugs/eval/op_count.h"

namespace ugs {

int64_t scalar_ops(const Op& op, const Shape& a, const Shape& out) {
  switch (op.kind) {
    case OpKind::Matmul: return 2 * out.numel() * a.last();
    case OpKind::RmsNorm: return 3 * out.numel();
    case OpKind::ReduceSum:
    case OpKind::ReduceSumTo:
    case OpKind::AccumSum:
    case OpKind::AccumSumLastdim:
    case OpKind::AccumSumLastdimTo: return a.numel();
    case OpKind::AccumRmsLastdim: return 2 * a.numel();
    case OpKind::Block: return 0;
    default: return out.numel();
  }
}

int64_t scalar_ops(const BlockGraph& bg) {
  int64_t in_loop = 0, after = 0;
  const int ni = bg.inputs.size();
  for (int k = 0; k < bg.ops.size(); ++k) {
    const Op& op = bg.ops[k];
    const Tile& out = bg.tiles[ni + k];
    const int64_t n = scalar_ops(op, bg.tiles[op.in[0]].shape, out.shape);
    (out.post && !is_accumulator(op.kind) ? after : in_loop) += n;
  }
  return bg.num_blocks() * (bg.loop * in_loop + after);
}

int64_t scalar_ops(const KernelGraph& graph) {
  int64_t n = 0;
  for (const KernelOp& k : graph.ops)
    n += k.op.kind == OpKind::Block ? scalar_ops(graph.blocks[k.block])
                                    : scalar_ops(k.op, graph.shape(k.op.in[0]), graph.shape(k.first_out));
  return n;
}

}  // namespace ugs
