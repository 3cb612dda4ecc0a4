// The op -> expression mapping of docs/design.md §4 (include/ugs/expr/op_expr.h).
#include "ugs/expr/op_expr.h"

#include <array>
#include <stdexcept>
#include <string>

#include "ugs/util/hash.h"

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

void check_operands(const Op& op, std::span<const ExprId> x, std::span<const Shape> s) {
  if (static_cast<int>(x.size()) < arity(op.kind) || static_cast<int>(s.size()) < arity(op.kind))
    throw std::invalid_argument("too few operands for op " + std::string(name_of(op.kind)));
}

ExprId compute_kernel_op_expr(ExprPool& p, const Op& op, std::span<const ExprId> x, std::span<const Shape> s) {
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

ExprId compute_block_op_expr(ExprPool& p, const Op& op, std::span<const ExprId> x, std::span<const Shape> s,
                             int32_t loop) {
  switch (op.kind) {
    case OpKind::ReduceSumTo: return p.sum(s[0].d[op.dim] / op.to, x[0]);
    case OpKind::AccumSum: return p.sum(loop, x[0]);
    case OpKind::AccumSumLastdim: return sum_or_rms(p, false, loop, s[0].last(), 1, x[0]);
    case OpKind::AccumSumLastdimTo: return sum_or_rms(p, false, loop, s[0].last(), op.to, x[0]);
    case OpKind::AccumRmsLastdim: return sum_or_rms(p, true, loop, s[0].last(), 1, x[0]);
    case OpKind::Block: not_here(op, "block");
    default: return compute_kernel_op_expr(p, op, x, s);  // a tile matmul sums over the tile's k
  }
}

// Each thread's latest op expressions, in front of the pool's memo. The generator asks for one per
// candidate op (gqa_small: 155 million asks, about a thousand distinct answers), and building one
// factors sizes and takes one to three memo lookups in the pool; here a repeat costs a hash and a
// compare of four words. The key holds what the two functions above read: the op, the loop range, the
// operands' expressions, and of the shapes only operand 0's dim `op.dim` and last dim (a change there
// must come here too; test_expr's OpExpr.FrontAnswersAsComputing compares answers over shapes that differ elsewhere).
// The words take their fields from separate 4-byte loads: the caller's operand arrays are copies made
// a moment before, and a wider load across two of those stores would stall on store forwarding.
class OpExprKey {
 public:
  OpExprKey() : w_{} {}  // an empty entry's; never compared, as no pool has id 0
  // Not inlined: in the caller, register pressure spilled a 4-byte field that was then reloaded at 8
  // bytes, one more store-forwarding stall; returned through memory, the words are stored whole.
  [[gnu::noinline]] OpExprKey(Level level, const Op& op, std::span<const ExprId> x, std::span<const Shape> s,
                              int32_t loop) {
    const bool two = arity(op.kind) > 1;
    const uint64_t at_dim = static_cast<uint32_t>(op.dim >= 0 && op.dim < s[0].rank ? s[0].d[op.dim] : 0);
    const uint64_t last = static_cast<uint32_t>(s[0].rank > 0 ? s[0].last() : 0);
    const uint64_t x0 = x[0], x1 = two ? x[1] : kNoExpr;
    w_ = {static_cast<uint64_t>(level) | uint64_t{static_cast<uint8_t>(op.kind)} << 8 |
              uint64_t{static_cast<uint8_t>(op.dim)} << 16 | uint64_t{static_cast<uint32_t>(op.to)} << 32,
          static_cast<uint32_t>(loop),
          x0 | at_dim << 32, x1 | last << 32};
  }
  uint64_t hash() const {
    const uint64_t h = (w_[0] ^ w_[0] >> 29) * 0x9E3779B97F4A7C15ull + (w_[1] ^ w_[1] >> 29) * 0xC2B2AE3D27D4EB4Full +
                       (w_[2] ^ w_[2] >> 29) * 0x165667B19E3779F9ull + (w_[3] ^ w_[3] >> 29) * 0xD6E8FEB86659FD93ull;
    return h ^ h >> 32;
  }
  bool operator==(const OpExprKey& o) const {
    return ((w_[0] ^ o.w_[0]) | (w_[1] ^ o.w_[1]) | (w_[2] ^ o.w_[2]) | (w_[3] ^ o.w_[3])) == 0;
  }

 private:
  std::array<uint64_t, 4> w_;
};

struct OpExprEntry {
  uint64_t pool = 0;  // 0: empty (pool ids start at 1)
  OpExprKey key;
  ExprId r = kNoExpr;
};
constexpr size_t kOpExprFront = 2048;
thread_local std::array<OpExprEntry, kOpExprFront> tl_op_front;

template <class Compute>
ExprId fronted(ExprPool& p, const OpExprKey& key, Compute compute) {
  OpExprEntry& e = tl_op_front[key.hash() % kOpExprFront];
  if (e.pool == p.id() && e.key == key) return e.r;
  const ExprId r = compute();
  e.pool = p.id();
  e.key = key;
  e.r = r;
  return r;
}

}  // namespace

ExprId kernel_op_expr(ExprPool& p, const Op& op, std::span<const ExprId> x, std::span<const Shape> s) {
  check_operands(op, x, s);
  return fronted(p, OpExprKey(Level::Kernel, op, x, s, 1), [&] { return compute_kernel_op_expr(p, op, x, s); });
}

ExprId block_op_expr(ExprPool& p, const Op& op, std::span<const ExprId> x, std::span<const Shape> s, int32_t loop) {
  check_operands(op, x, s);
  return fronted(p, OpExprKey(Level::Block, op, x, s, loop),
                 [&] { return compute_block_op_expr(p, op, x, s, loop); });
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

std::vector<ExprId> output_exprs(ExprPool& p, const KernelGraph& g) {
  const std::vector<ExprId> t = kernel_tensor_exprs(p, g);
  std::vector<ExprId> out;
  for (int32_t o : g.outputs) out.push_back(t[o]);
  return out;
}

}  // namespace ugs::expr
