// Shape inference for one op (docs/design.md §1 table and the block ops of §2).
#include <span>

#include "ugs/ir/graph.h"

namespace ugs {
namespace {

Verdict matmul_shape(const Shape& a, const Shape& b, Level level, Shape* out) {
  if (a.rank != b.rank) return Verdict::RankMismatch;
  if (a.rank < 2) return Verdict::RankTooLow;
  const int r = a.rank;
  for (int i = 0; i < r - 2; ++i) {
    if (a.d[i] != b.d[i]) return Verdict::BatchMismatch;
    if (level == Level::Block && a.d[i] != 1) return Verdict::BlockBatchedMatmul;
  }
  if (a.d[r - 1] != b.d[r - 2]) return Verdict::InnerDimMismatch;
  *out = a;
  out->d[r - 1] = b.d[r - 1];
  return Verdict::Ok;
}

Verdict broadcast_shape(const Shape& a, const Shape& b, Shape* out) {
  if (a.rank != b.rank) return Verdict::RankMismatch;
  *out = a;
  for (int i = 0; i < a.rank; ++i) {
    if (a.d[i] != b.d[i] && a.d[i] != 1 && b.d[i] != 1) return Verdict::BroadcastMismatch;
    out->d[i] = a.d[i] == 1 ? b.d[i] : a.d[i];
  }
  return Verdict::Ok;
}

// Folds dim `dim` of `s` to size `to` (reduce_sum_to and accum_sum_lastdim_to).
Verdict fold_shape(const Shape& s, int dim, int32_t to, Shape* out) {
  if (dim < 0 || dim >= s.rank) return Verdict::BadDim;
  if (to < 1 || s.d[dim] % to != 0) return Verdict::BadTo;
  *out = s;
  out->d[dim] = to;
  return Verdict::Ok;
}

bool allowed_at(OpKind k, Level level) {
  switch (info(k).where) {
    case OpWhere::Both: return true;
    case OpWhere::Block:
    case OpWhere::Accum: return level == Level::Block;
    case OpWhere::Kernel: return false;  // a block graph is not an Op with a shape rule
  }
  return false;
}

}  // namespace

Verdict infer_shape(const Op& op, Level level, std::span<const Shape> in, Shape* out) {
  if (!allowed_at(op.kind, level)) return Verdict::WrongLevel;
  if (static_cast<int>(in.size()) != arity(op.kind)) return Verdict::Arity;
  const Shape& a = in[0];
  switch (op.kind) {
    case OpKind::Matmul: return matmul_shape(a, in[1], level, out);
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Div: return broadcast_shape(a, in[1], out);
    case OpKind::Exp:
    case OpKind::Sqrt:
    case OpKind::Square:
    case OpKind::Silu:
    case OpKind::RmsNorm:
    case OpKind::AccumSum:
    case OpKind::AccumRmsLastdim:
    case OpKind::AccumSumLastdim: {
      *out = a;
      if (op.kind == OpKind::AccumRmsLastdim || op.kind == OpKind::AccumSumLastdim) out->d[a.rank - 1] = 1;
      return Verdict::Ok;
    }
    case OpKind::ReduceSum: return fold_shape(a, op.dim, 1, out);
    case OpKind::ReduceSumTo: return fold_shape(a, op.dim, op.to, out);
    case OpKind::AccumSumLastdimTo: return fold_shape(a, a.rank - 1, op.to, out);
    case OpKind::Block: return Verdict::WrongLevel;
  }
  return Verdict::WrongLevel;
}

}  // namespace ugs
