// The op -> expression mapping of DESIGN §4 (include/ugs/expr/op_expr.h).
#include "ugs/expr/op_expr.h"

#include <array>
#include <stdexcept>
#include <string>

namespace ugs::expr {
namespace {

Size size_of(int64_t n) {
  const std::optional<Size> s = Size::of(n);
  if (!s) throw std::invalid_argument("reduction size " + std::to_string(n) + " cannot be factored");
  return *s;
}

// F·last / c, multiplied as factorizations (F·last can exceed what trial division handles quickly).
ExprId sum_or_rms(ExprPool& p, bool rms, int32_t loop, int32_t last, int32_t fold_to, ExprId x) {
  const std::optional<Size> fl = Size::product(size_of(loop), size_of(last));
  if (!fl) return p.huge();
  const Size k = fl->quotient(size_of(fold_to));
  return rms ? p.rms(k, x) : p.sum(k, x);
}

[[noreturn]] void not_here(const Op& op, const char* level) {
  throw std::invalid_argument("no " + std::string(level) + "-level expression for op " + std::string(name_of(op.kind)));
}

}  // namespace

ExprId kernel_op_expr(ExprPool& p, const Op& op, std::span<const ExprId> x, std::span<const Shape> s) {
  if (static_cast<int>(x.size()) < arity(op.kind) || static_cast<int>(s.size()) < arity(op.kind))
    throw std::invalid_argument("too few operands for op " + std::string(name_of(op.kind)));
  switch (op.kind) {
    case OpKind::Matmul: return p.sum(s[0].last(), p.mul(x[0], x[1]));
    case OpKind::Add: return p.add(x[0], x[1]);
    case OpKind::Mul: return p.mul(x[0], x[1]);
    case OpKind::Div: return p.div(x[0], x[1]);
    case OpKind::Exp: return p.exp(x[0]);
    case OpKind::Sqrt: return p.sqrt(x[0]);
    case OpKind::Square: return p.mul(x[0], x[0]);
    case OpKind::Silu: return p.silu(x[0]);
    case OpKind::ReduceSum: return p.sum(s[0].d[op.dim], x[0]);
    case OpKind::RmsNorm: return p.div(x[0], p.rms(s[0].last(), x[0]));
    default: not_here(op, "kernel");
  }
}

ExprId block_op_expr(ExprPool& p, const Op& op, std::span<const ExprId> x, std::span<const Shape> s, int32_t loop) {
  if (static_cast<int>(x.size()) < arity(op.kind) || static_cast<int>(s.size()) < arity(op.kind))
    throw std::invalid_argument("too few operands for op " + std::string(name_of(op.kind)));
  switch (op.kind) {
    case OpKind::ReduceSumTo: return p.sum(s[0].d[op.dim] / op.to, x[0]);
    case OpKind::AccumSum: return p.sum(loop, x[0]);
    case OpKind::AccumSumLastdim: return sum_or_rms(p, false, loop, s[0].last(), 1, x[0]);
    case OpKind::AccumSumLastdimTo: return sum_or_rms(p, false, loop, s[0].last(), op.to, x[0]);
    case OpKind::AccumRmsLastdim: return sum_or_rms(p, true, loop, s[0].last(), 1, x[0]);
    case OpKind::Block: not_here(op, "block");
    default: return kernel_op_expr(p, op, x, s);  // a tile matmul sums over the tile's k
  }
}

std::vector<ExprId> block_tile_exprs(ExprPool& p, const BlockGraph& bg, std::span<const ExprId> kernel_exprs) {
  std::vector<ExprId> t;
  t.reserve(bg.tiles.size());
  for (const BlockInput& in : bg.inputs) t.push_back(kernel_exprs[in.tensor]);
  for (const Op& op : bg.ops) {
    const int n = arity(op.kind);
    std::array<ExprId, 2> x{};
    std::array<Shape, 2> s{};
    for (int i = 0; i < n; ++i) x[i] = t[op.in[i]], s[i] = bg.tiles[op.in[i]].shape;
    t.push_back(block_op_expr(p, op, std::span(x.data(), n), std::span(s.data(), n), bg.loop));
  }
  return t;
}

std::vector<ExprId> kernel_tensor_exprs(ExprPool& p, const KernelGraph& g) {
  std::vector<ExprId> t(g.num_tensors(), kNoExpr);
  for (int i = 0; i < g.num_inputs; ++i) t[i] = p.var(i);
  for (const KernelOp& k : g.ops) {
    if (k.op.kind == OpKind::Block) {
      const BlockGraph& bg = g.blocks[k.block];
      const std::vector<ExprId> tiles = block_tile_exprs(p, bg, t);
      for (int o = 0; o < bg.outputs.size(); ++o) t[k.first_out + o] = tiles[bg.outputs[o].tile];
      continue;
    }
    const int n = arity(k.op.kind);
    std::array<ExprId, 2> x{};
    std::array<Shape, 2> s{};
    for (int i = 0; i < n; ++i) x[i] = t[k.op.in[i]], s[i] = g.shape(k.op.in[i]);
    t[k.first_out] = kernel_op_expr(p, k.op, std::span(x.data(), n), std::span(s.data(), n));
  }
  return t;
}

}  // namespace ugs::expr
