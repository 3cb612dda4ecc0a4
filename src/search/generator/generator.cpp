// The generator's steps at kernel and block level, applying a step, and completion.
#include "ugs/search/generator/generator.h"

#include <algorithm>
#include <bit>
#include <numeric>

#include "search/generator/enumerate.h"
#include "search/generator/reach.h"
#include "search/generator/shaped_ops.h"
#include "ugs/expr/op_expr.h"
#include "ugs/ir/canonical.h"

namespace ugs {

using search_detail::for_each_operands;
using search_detail::for_each_variant;
using search_detail::is_idle_sum;

namespace {

// Tiles no block op reads, as a bit set: what a closing saves. Empty if one of them cannot be saved (a
// loader or a tensor from inside the loop would be left unused). Bits rather than a list: this runs for
// every open state, and a list's array was zeroed on every call.
uint32_t savable_tiles(const BlockGraph& b) {
  static_assert(kMaxTiles <= 32);
  uint32_t used = 0;
  for (const Op& op : b.ops)
    for (int i = 0; i < arity(op.kind); ++i) used |= 1u << op.in[i];
  uint32_t outs = 0;
  for (int t = 0; t < b.tiles.size(); ++t) {
    if (used >> t & 1) continue;
    if (!b.tiles[t].post) return 0;
    outs |= 1u << t;
  }
  return outs;
}

// Calls f(t) for each tile t of a savable_tiles set, in increasing order (the savers' order).
template <class F>
void for_each_tile(uint32_t set, F f) {
  for (; set != 0; set &= set - 1) f(std::countr_zero(set));
}

}  // namespace

Generator::Generator(const KernelGraph& program, const SearchConfig& cfg, expr::ExprPool& pool)
    : program_(program), cfg_(cfg), pool_(pool), rules_(cfg.rules()),
      shaped_(std::make_unique<search_detail::ShapedOpsMemo>(cfg)) {}

Generator::~Generator() = default;

State Generator::root() const {
  State s;
  for (int i = 0; i < program_.num_inputs; ++i) {
    s.g.add_input(program_.shape(i));
    s.kexpr.push_back(pool_.var(i));
  }
  return s;
}

void Generator::candidates(const State& s, std::vector<Step>& out, PruneCounts& pruned) const {
  if (s.open) {
    block_op_steps(s, out, pruned);
    close_steps(s, out, pruned);
  } else {
    kernel_op_steps(s, out, pruned);
    open_steps(s, out, pruned);
  }
}

void Generator::kernel_op_steps(const State& s, std::vector<Step>& out, PruneCounts& pruned) const {
  const KernelGraph& g = s.g;
  if (g.num_inputs + g.ops.size() >= cfg_.max_kernel_ops) return;
  std::array<bool, kMaxTensors> is_open{};
  const FixedVec<int32_t, kMaxTensors> open = g.open_tensors();
  for (int32_t t : open) is_open[t] = true;
  const int64_t ops_left = cfg_.max_kernel_ops - g.num_inputs - g.ops.size() - 1;
  const int64_t blocks_left = cfg_.max_block_graphs - g.blocks.size();
  for (OpKind kind : cfg_.kernel_ops) {
    const int n = arity(kind);
    for_each_operands(n, is_commutative(kind), g.num_tensors(), [&](int a, int b) {
      for_each_variant(kind, g.shape(a), cfg_, [&](Op op) {
        op.in = {a, b};
        const std::array<Shape, 2> shapes{g.shape(a), b >= 0 ? g.shape(b) : Shape{}};
        Shape result;
        if (infer_shape(op, Level::Kernel, std::span(shapes.data(), n), &result) != Verdict::Ok ||
            is_idle_sum(kind, shapes[0], result)) {
          ++pruned.shape;
          return;
        }
        if (!may_append(g, op)) {
          ++pruned.order;
          return;
        }
        const int consumed = is_open[a] + (b >= 0 && b != a && is_open[b]);
        if (!search_detail::kernel_can_finish(open.size() - consumed + 1, program_.outputs.size(), ops_left,
                                              blocks_left, cfg_)) {
          ++pruned.reach;
          return;
        }
        const std::array<expr::ExprId, 2> ex{s.kexpr[a], b >= 0 ? s.kexpr[b] : s.kexpr[a]};
        const expr::ExprId query = expr::kernel_op_expr(pool_, op, std::span(ex.data(), n), std::span(shapes.data(), n));
        Step& st = out.emplace_back();  // in place: a Step copied from the stack stalls on store forwarding
        st.op = op;
        st.query = query;
      });
    });
  }
}

// The shape check comes from the memo of the tiles' shaped ops (shaped_ops.h); the checks
// that depend on the rest of the state run here, in the same order as the shape check's enumeration.
void Generator::block_op_steps(const State& s, std::vector<Step>& out, PruneCounts& pruned) const {
  if (s.b.inputs.size() + s.b.ops.size() >= cfg_.max_block_ops) return;
  const search_detail::ShapedView shaped = shaped_->lookup(s.b);
  pruned.shape += shaped.rejected;
  const search_detail::BlockReach reach(s.b, search_detail::savers_allowed(s.g, s.b, program_.outputs.size(), cfg_),
                                        cfg_);
  const int64_t smem = s.b.smem_bytes(rules_);
  const BlockAppendOrder order(s.b);
  for (const search_detail::ShapedOp& c : shaped.ops) {
    const Op op = c.op();
    if (!reach.after(op, c.post)) {
      ++pruned.reach;
      continue;
    }
    if (smem + int64_t{c.numel} * rules_.elem_bytes > rules_.smem_budget_bytes) {
      ++pruned.memory;
      continue;
    }
    if (!order.admits(op)) {
      ++pruned.order;
      continue;
    }
    const int n = arity(op.kind), a = op.in[0], b = op.in[1];
    const std::array<Shape, 2> shapes{s.b.tiles[a].shape, b >= 0 ? s.b.tiles[b].shape : Shape{}};
    const std::array<expr::ExprId, 2> ex{s.bexpr[a], b >= 0 ? s.bexpr[b] : s.bexpr[a]};
    const expr::ExprId query =
        expr::block_op_expr(pool_, op, std::span(ex.data(), n), std::span(shapes.data(), n), s.b.loop);
    Step& st = out.emplace_back();  // in place, as in kernel_op_steps
    st.kind = Step::Kind::BlockOp;
    st.op = op;
    st.query = query;
  }
}

// One omap for all savers (as Mirage): each grid axis of size > 1 takes a distinct dim.
void Generator::close_steps(const State& s, std::vector<Step>& out, PruneCounts& pruned) const {
  if (s.b.ops.empty()) return;
  const uint32_t outs = savable_tiles(s.b);
  if (outs == 0 || std::popcount(outs) > cfg_.max_block_outputs) return;
  FixedVec<int, 3> radix, axes;
  for (int a = 0; a < 3; ++a)
    if (s.b.grid[a] > 1) {
      axes.push_back(a);
      radix.push_back(s.b.tiles[std::countr_zero(outs)].shape.rank);
    }
  search_detail::Odometer<3> dims(radix);
  do {
    Step st;
    st.kind = Step::Kind::CloseBlock;
    for (int i = 0; i < axes.size(); ++i) st.omap[axes[i]] = static_cast<int8_t>(dims.digits()[i]);
    if (!cfg_.tries_omap(st.omap)) continue;
    BlockGraph closed = s.b;
    bool ok = true;
    for_each_tile(outs, [&](int t) { ok = ok && closed.add_output(t, st.omap) == Verdict::Ok; });
    KernelGraph g = s.g;
    const Verdict v = ok ? g.add_block(closed, rules_) : Verdict::BadOmap;
    if (v != Verdict::Ok) {
      ++(cause(v) == Cause::Memory ? pruned.memory : pruned.shape);
    } else if (!may_append_block(s.g, closed)) {
      ++pruned.order;
    } else if (!search_detail::kernel_can_finish(g, program_.outputs.size(), cfg_)) {
      ++pruned.reach;
    } else {
      out.push_back(st);
    }
  } while (dims.next());
}

void Generator::apply_op(State& c, const Op& op, expr::ExprId query) {
  if (c.open) {
    c.b.add_op(op);
    c.bexpr.push_back(query);
  } else {
    c.g.add_op(op);
    c.kexpr.push_back(query);
  }
}

void Generator::apply_in_place(State& c, const Step& st) const {
  switch (st.kind) {
    case Step::Kind::KernelOp:
    case Step::Kind::BlockOp:
      apply_op(c, st.op, st.query);
      break;
    case Step::Kind::OpenBlock:
      c.open = true;
      c.b.clear();
      c.b.grid = st.grid;
      c.b.loop = st.loop;
      c.bexpr.clear();
      for (const BlockInput& in : st.inputs) {
        c.b.add_input(in.tensor, c.g.shape(in.tensor), in.imap, in.fmap);
        c.bexpr.push_back(c.kexpr[in.tensor]);  // a loader passes its tensor's expression
      }
      break;
    case Step::Kind::CloseBlock: {
      const uint32_t outs = savable_tiles(c.b);
      for_each_tile(outs, [&](int t) { c.b.add_output(t, st.omap); });
      c.g.add_block(c.b, rules_);
      for_each_tile(outs, [&](int t) { c.kexpr.push_back(c.bexpr[t]); });  // a saver passes its tile's expression
      c.open = false;
      c.b.clear();
      c.bexpr.clear();
      break;
    }
  }
}

void Generator::undo_op(State& s) {
  if (s.open) {
    s.b.pop_op();
    s.bexpr.pop_back();
  } else {
    s.g.pop_op();
    s.kexpr.pop_back();
  }
}

void Generator::completions(const State& s, std::vector<KernelGraph>& out) const {
  if (s.open) return;
  const FixedVec<int32_t, kMaxTensors> open = s.g.open_tensors();
  const int n = program_.outputs.size();
  if (open.size() != n) return;
  std::array<int, kMaxOutputs> perm;
  std::iota(perm.begin(), perm.begin() + n, 0);
  do {
    bool match = true;
    FixedVec<int32_t, kMaxOutputs> outs;
    for (int i = 0; i < n; ++i) {
      outs.push_back(open[perm[i]]);
      match = match && s.g.shape(open[perm[i]]) == program_.shape(program_.outputs[i]);
    }
    KernelGraph g = s.g;
    if (match && g.set_outputs(outs.span()) == Verdict::Ok) out.push_back(g);
  } while (std::next_permutation(perm.begin(), perm.begin() + n));
}

}  // namespace ugs
