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
ExprId sum_or_rms(ExprPool& pool, bool rms, int32_t loop, int32_t last, int32_t fold_to, ExprId x) {
  const std::optional<Size> fl = Size::product(size_of(loop), size_of(last));
  if (!fl) return pool.huge();
  const Size k = fl->quotient(size_of(fold_to));
  return rms ? pool.rms(k, x) : pool.sum(k, x);
}

[[noreturn]] void not_here(const Op& op, const char* level) {
  throw std::invalid_argument("no " + std::string(level) + "-level expression for op " + std::string(name_of(op.kind)));
}

void check_operands(const Op& op, std::span<const ExprId> x, std::span<const Shape> s) {
  if (static_cast<int>(x.size()) < arity(op.kind) || static_cast<int>(s.size()) < arity(op.kind))
    throw std::invalid_argument("too few operands for op " + std::string(name_of(op.kind)));
}

ExprId compute_kernel_op_expr(ExprPool& pool, const Op& op, std::span<const ExprId> x, std::span<const Shape> s) {
  switch (op.kind) {
    case OpKind::Matmul: return pool.sum(s[0].last(), pool.mul(x[0], x[1]));
    case OpKind::Add: return pool.add(x[0], x[1]);
    case OpKind::Mul: return pool.mul(x[0], x[1]);
    case OpKind::Div: return pool.div(x[0], x[1]);
    case OpKind::Exp: return pool.exp(x[0]);
    case OpKind::Sqrt: return pool.sqrt(x[0]);
    case OpKind::Square: return pool.mul(x[0], x[0]);
    case OpKind::Silu: return pool.silu(x[0]);
    case OpKind::ReduceSum: return pool.sum(s[0].d[op.dim], x[0]);
    case OpKind::RmsNorm: return pool.div(x[0], pool.rms(s[0].last(), x[0]));
    default: not_here(op, "kernel");
  }
}

ExprId compute_block_op_expr(ExprPool& pool, const Op& op, std::span<const ExprId> x, std::span<const Shape> s,
                             int32_t loop) {
  switch (op.kind) {
    case OpKind::ReduceSumTo: return pool.sum(s[0].d[op.dim] / op.to, x[0]);
    case OpKind::AccumSum: return pool.sum(loop, x[0]);
    case OpKind::AccumSumLastdim: return sum_or_rms(pool, false, loop, s[0].last(), 1, x[0]);
    case OpKind::AccumSumLastdimTo: return sum_or_rms(pool, false, loop, s[0].last(), op.to, x[0]);
    case OpKind::AccumRmsLastdim: return sum_or_rms(pool, true, loop, s[0].last(), 1, x[0]);
    case OpKind::Block: not_here(op, "block");
    default: return compute_kernel_op_expr(pool, op, x, s);  // a tile matmul sums over the tile's k
  }
}

// Each thread's latest op expressions, in front of the pool's memo. The generator asks for one per
// candidate op, a search asks for the same few answers over and over, and building one factors sizes
// and takes one to three memo lookups in the pool; here a repeat costs a hash and a compare of four
// words. The key holds what the two functions above read: the op, the loop range, the operands'
// expressions, and of the shapes only operand 0's dim `op.dim` and last dim (a change there must come
// here too; test_expr's OpExpr.FrontAnswersAsComputing compares answers over shapes that differ
// elsewhere).
// The words take their fields from separate 4-byte loads: the caller's operand arrays are copies made
// a moment before, and a wider load across two of those stores would stall on store forwarding.
class OpExprKey {
 public:
  OpExprKey() : words_{} {}  // an empty entry's; never compared, as no pool has id 0
  // Not inlined: in the caller, register pressure spilled a 4-byte field that was then reloaded at 8
  // bytes, one more store-forwarding stall; returned through memory, the words are stored whole.
  [[gnu::noinline]] OpExprKey(Level level, const Op& op, std::span<const ExprId> x, std::span<const Shape> s,
                              int32_t loop) {
    const bool two = arity(op.kind) > 1;
    const uint64_t at_dim = static_cast<uint32_t>(op.dim >= 0 && op.dim < s[0].rank ? s[0].d[op.dim] : 0);
    const uint64_t last = static_cast<uint32_t>(s[0].rank > 0 ? s[0].last() : 0);
    const uint64_t x0 = x[0], x1 = two ? x[1] : kNoExpr;
    words_ = {static_cast<uint64_t>(level) | uint64_t{static_cast<uint8_t>(op.kind)} << 8 |
              uint64_t{static_cast<uint8_t>(op.dim)} << 16 | uint64_t{static_cast<uint32_t>(op.to)} << 32,
          static_cast<uint32_t>(loop),
          x0 | at_dim << 32, x1 | last << 32};
  }
  uint64_t hash() const {
    const uint64_t h =
        (words_[0] ^ words_[0] >> 29) * 0x9E3779B97F4A7C15ull + (words_[1] ^ words_[1] >> 29) * 0xC2B2AE3D27D4EB4Full +
        (words_[2] ^ words_[2] >> 29) * 0x165667B19E3779F9ull + (words_[3] ^ words_[3] >> 29) * 0xD6E8FEB86659FD93ull;
    return h ^ h >> 32;
  }
  bool operator==(const OpExprKey& o) const {
    return ((words_[0] ^ o.words_[0]) | (words_[1] ^ o.words_[1]) | (words_[2] ^ o.words_[2]) |
            (words_[3] ^ o.words_[3])) == 0;
  }

 private:
  std::array<uint64_t, 4> words_;
};

struct OpExprEntry {
  uint64_t pool = 0;  // 0: empty (pool ids start at 1)
  OpExprKey key;
  ExprId answer = kNoExpr;
};
constexpr size_t kOpExprFront = 2048;
thread_local std::array<OpExprEntry, kOpExprFront> tl_op_front;

template <class Compute>
ExprId fronted(ExprPool& pool, const OpExprKey& key, Compute compute) {
  OpExprEntry& entry = tl_op_front[key.hash() % kOpExprFront];
  if (entry.pool == pool.id() && entry.key == key) return entry.answer;
  const ExprId answer = compute();
  entry.pool = pool.id();
  entry.key = key;
  entry.answer = answer;
  return answer;
}

}  // namespace

ExprId kernel_op_expr(ExprPool& pool, const Op& op, std::span<const ExprId> x, std::span<const Shape> s) {
  check_operands(op, x, s);
  return fronted(pool, OpExprKey(Level::Kernel, op, x, s, 1), [&] { return compute_kernel_op_expr(pool, op, x, s); });
}

ExprId block_op_expr(ExprPool& pool, const Op& op, std::span<const ExprId> x, std::span<const Shape> s, int32_t loop) {
  check_operands(op, x, s);
  return fronted(pool, OpExprKey(Level::Block, op, x, s, loop),
                 [&] { return compute_block_op_expr(pool, op, x, s, loop); });
}

std::vector<ExprId> block_tile_exprs(ExprPool& pool, const BlockGraph& bg, std::span<const ExprId> kernel_exprs) {
  std::vector<ExprId> exprs;
  exprs.reserve(bg.tiles.size());
  for (const BlockInput& in : bg.inputs) exprs.push_back(kernel_exprs[in.tensor]);
  for (const Op& op : bg.ops) {
    const int n = arity(op.kind);
    std::array<ExprId, 2> x{};
    std::array<Shape, 2> s{};
    for (int i = 0; i < n; ++i) x[i] = exprs[op.in[i]], s[i] = bg.tiles[op.in[i]].shape;
    exprs.push_back(block_op_expr(pool, op, std::span(x.data(), n), std::span(s.data(), n), bg.loop));
  }
  return exprs;
}

std::vector<ExprId> kernel_tensor_exprs(ExprPool& pool, const KernelGraph& graph) {
  std::vector<ExprId> exprs(graph.num_tensors(), kNoExpr);
  for (int i = 0; i < graph.num_inputs; ++i) exprs[i] = pool.var(i);
  for (const KernelOp& kernel_op : graph.ops) {
    if (kernel_op.op.kind == OpKind::Block) {
      const BlockGraph& bg = graph.blocks[kernel_op.block];
      const std::vector<ExprId> tiles = block_tile_exprs(pool, bg, exprs);
      for (int o = 0; o < bg.outputs.size(); ++o) exprs[kernel_op.first_out + o] = tiles[bg.outputs[o].tile];
      continue;
    }
    const int n = arity(kernel_op.op.kind);
    std::array<ExprId, 2> x{};
    std::array<Shape, 2> s{};
    for (int i = 0; i < n; ++i) x[i] = exprs[kernel_op.op.in[i]], s[i] = graph.shape(kernel_op.op.in[i]);
    exprs[kernel_op.first_out] = kernel_op_expr(pool, kernel_op.op, std::span(x.data(), n), std::span(s.data(), n));
  }
  return exprs;
}

std::vector<ExprId> output_exprs(ExprPool& pool, const KernelGraph& graph) {
  const std::vector<ExprId> exprs = kernel_tensor_exprs(pool, graph);
  std::vector<ExprId> out;
  for (int32_t o : graph.outputs) out.push_back(exprs[o]);
  return out;
}

}  // namespace ugs::expr
