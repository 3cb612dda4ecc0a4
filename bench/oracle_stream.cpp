// The synthetic generator of bench/oracle_stream.h.
#include "oracle_stream.h"

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "ugs/expr/op_expr.h"

namespace ugs::bench {
namespace {

using expr::ExprId;

constexpr int kFoldTo = 16;  // `to` of reduce_sum_to and accum_sum_lastdim_to

struct KState {
  std::vector<Shape> shapes;
  std::vector<ExprId> exprs;
};

struct BState {
  BlockGraph bg;
  std::vector<ExprId> tiles;
};

// A candidate step: the state it extends, the op, its output expression (the query).
template <class S>
struct Cand {
  const S* from;
  Op op;
  ExprId query;
};

Op make_op(OpKind k, int a, int b = -1, int dim = 0, int to = 0) {
  Op o;
  o.kind = k;
  o.in = {a, b};
  o.dim = static_cast<int8_t>(dim);
  o.to = to;
  return o;
}

// Every op kind applicable at `level` to tensors of the given shapes, in canonical operand order.
std::vector<Op> candidate_ops(std::span<const Shape> shapes, Level level) {
  std::vector<Op> ops;
  const int n = static_cast<int>(shapes.size());
  for (int a = 0; a < n; ++a) {
    for (OpKind k : {OpKind::Exp, OpKind::Sqrt, OpKind::Square, OpKind::Silu, OpKind::RmsNorm})
      ops.push_back(make_op(k, a));
    for (int d = 0; d < shapes[a].rank; ++d) ops.push_back(make_op(OpKind::ReduceSum, a, -1, d));
    if (level == Level::Block) {
      for (OpKind k : {OpKind::AccumSum, OpKind::AccumSumLastdim, OpKind::AccumRmsLastdim})
        ops.push_back(make_op(k, a));
      ops.push_back(make_op(OpKind::AccumSumLastdimTo, a, -1, 0, kFoldTo));
      for (int d = 0; d < shapes[a].rank; ++d) ops.push_back(make_op(OpKind::ReduceSumTo, a, -1, d, kFoldTo));
    }
    for (int b = 0; b < n; ++b) {
      for (OpKind k : {OpKind::Matmul, OpKind::Div}) ops.push_back(make_op(k, a, b));
      if (a <= b)
        for (OpKind k : {OpKind::Add, OpKind::Mul}) ops.push_back(make_op(k, a, b));
    }
  }
  return ops;
}

std::vector<Shape> operand_shapes(const Op& op, std::span<const Shape> shapes) {
  std::vector<Shape> s;
  for (int i = 0; i < arity(op.kind); ++i) s.push_back(shapes[op.in[i]]);
  return s;
}

std::vector<ExprId> operand_exprs(const Op& op, std::span<const ExprId> exprs) {
  std::vector<ExprId> e;
  for (int i = 0; i < arity(op.kind); ++i) e.push_back(exprs[op.in[i]]);
  return e;
}

// Asks the oracle about one level's candidates (one batch) and returns the survivors.
template <class S>
std::vector<Cand<S>> decide(expr::Oracle& oracle, std::vector<Cand<S>> cands, QueryStream& out) {
  std::vector<ExprId> q;
  for (const Cand<S>& c : cands) q.push_back(c.query);
  std::vector<uint8_t> keep;
  oracle.is_subexpr_batch(q, keep);
  out.levels.push_back(std::move(q));
  std::vector<Cand<S>> kept;
  for (size_t i = 0; i < cands.size(); ++i)
    if (keep[i]) kept.push_back(cands[i]);
  return kept;
}

template <class S>
std::vector<S> sample(std::vector<S> v, int max) {
  if (static_cast<int>(v.size()) <= max) return v;
  std::vector<S> s;
  const double stride = static_cast<double>(v.size()) / max;
  for (int i = 0; i < max; ++i) s.push_back(std::move(v[static_cast<size_t>(i * stride)]));
  return s;
}

std::vector<KState> kernel_levels(expr::ExprPool& pool, expr::Oracle& oracle, const KernelGraph& prog,
                                  const StreamLimits& lim, QueryStream& out) {
  KState root;
  for (int i = 0; i < prog.num_inputs; ++i) root.shapes.push_back(prog.shape(i)), root.exprs.push_back(pool.var(i));
  std::vector<KState> all{root}, frontier{root};
  for (int level = 0; level < lim.kernel_levels; ++level) {
    std::vector<Cand<KState>> cands;
    for (const KState& s : frontier)
      for (const Op& op : candidate_ops(s.shapes, Level::Kernel)) {
        Shape o;
        const std::vector<Shape> in = operand_shapes(op, s.shapes);
        if (infer_shape(op, Level::Kernel, in, &o) != Verdict::Ok) continue;
        cands.push_back({&s, op, expr::kernel_op_expr(pool, op, operand_exprs(op, s.exprs), in)});
      }
    std::vector<KState> next;
    for (const Cand<KState>& c : decide(oracle, std::move(cands), out)) {
      KState n = *c.from;
      Shape o;
      infer_shape(c.op, Level::Kernel, operand_shapes(c.op, n.shapes), &o);
      n.shapes.push_back(o);
      n.exprs.push_back(c.query);
      next.push_back(std::move(n));
    }
    frontier = sample(std::move(next), lim.max_frontier);
    all.insert(all.end(), frontier.begin(), frontier.end());
  }
  return all;
}

// Per input: the (imap on grid axis x, fmap) pairs that split evenly.
std::vector<std::pair<int8_t, int8_t>> input_maps(const Shape& s, int gx, int loop) {
  std::vector<std::pair<int8_t, int8_t>> maps;
  for (int im = -1; im < s.rank; ++im) {
    if ((gx == 1) != (im == -1)) continue;
    if (im >= 0 && s.d[im] % gx != 0) continue;
    for (int fm = -1; fm < s.rank; ++fm) {
      if ((loop == 1) != (fm == -1)) continue;
      maps.emplace_back(static_cast<int8_t>(im), static_cast<int8_t>(fm));
    }
  }
  return maps;
}

// Block graphs over the last two tensors of each state (the inputs, or the newest kernel op and the
// tensor before it): grid (gx, 1, 1), loop F, every imap and fmap that splits evenly.
std::vector<BState> openings(const std::vector<KState>& states, const StreamLimits& lim) {
  std::vector<BState> out;
  for (const KState& s : states) {
    std::vector<int> ins;
    for (int t = std::max(0, static_cast<int>(s.shapes.size()) - 2); t < static_cast<int>(s.shapes.size()); ++t)
      ins.push_back(t);
    for (int gx : {1, 2, 3, 4, 6, 8, 12, 16})
      for (int loop : {1, 4, 16}) {
        const auto m0 = input_maps(s.shapes[ins[0]], gx, loop);
        const auto m1 = ins.size() > 1 ? input_maps(s.shapes[ins[1]], gx, loop) : decltype(m0){{-1, -1}};
        for (const auto& a : m0)
          for (const auto& b : m1) {
            BState st;
            st.bg.grid = {gx, 1, 1};
            st.bg.loop = loop;
            bool ok = st.bg.add_input(ins[0], s.shapes[ins[0]], {a.first, -1, -1}, a.second) == Verdict::Ok;
            if (ins.size() > 1)
              ok = ok && st.bg.add_input(ins[1], s.shapes[ins[1]], {b.first, -1, -1}, b.second) == Verdict::Ok;
            if (!ok) continue;
            for (int i : ins) st.tiles.push_back(s.exprs[i]);
            out.push_back(std::move(st));
          }
      }
  }
  return sample(std::move(out), lim.max_frontier);
}

void block_levels(expr::ExprPool& pool, expr::Oracle& oracle, std::vector<BState> frontier, const StreamLimits& lim,
                  QueryStream& out) {
  for (int level = 0; level < lim.block_levels && !frontier.empty(); ++level) {
    std::vector<Cand<BState>> cands;
    std::vector<Shape> shapes;
    for (const BState& s : frontier) {
      shapes.clear();
      for (const Tile& t : s.bg.tiles) shapes.push_back(t.shape);
      for (const Op& op : candidate_ops(shapes, Level::Block)) {
        BlockGraph probe = s.bg;
        if (probe.add_op(op) != Verdict::Ok) continue;
        const std::vector<Shape> in = operand_shapes(op, shapes);
        cands.push_back({&s, op, expr::block_op_expr(pool, op, operand_exprs(op, s.tiles), in, s.bg.loop)});
      }
    }
    std::vector<BState> next;
    for (const Cand<BState>& c : decide(oracle, std::move(cands), out)) {
      BState n = *c.from;
      n.bg.add_op(c.op);
      n.tiles.push_back(c.query);
      next.push_back(std::move(n));
    }
    frontier = sample(std::move(next), lim.max_frontier);
  }
}

}  // namespace

size_t QueryStream::total() const {
  size_t n = 0;
  for (const auto& l : levels) n += l.size();
  return n;
}

size_t QueryStream::distinct() const {
  std::unordered_set<ExprId> d;
  for (const auto& l : levels) d.insert(l.begin(), l.end());
  return d.size();
}

QueryStream record_stream(expr::ExprPool& pool, expr::Oracle& oracle, const KernelGraph& program,
                          const StreamLimits& limits) {
  QueryStream out;
  const std::vector<KState> states = kernel_levels(pool, oracle, program, limits, out);
  block_levels(pool, oracle, openings(states, limits), limits, out);
  return out;
}

}  // namespace ugs::bench
