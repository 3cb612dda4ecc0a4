// The generator's steps at kernel and block level, applying a step, and completion.
#include "ugs/search/generator/generator.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "search/generator/closing_memo.h"
#include "search/generator/opening_memos.h"
#include "search/generator/enumerate.h"
#include "search/generator/output_shapes.h"
#include "search/generator/output_symbols.h"
#include "search/generator/prefix_queries.h"
#include "search/generator/reach.h"
#include "search/generator/savers.h"
#include "search/generator/shaped_ops.h"
#include "ugs/expr/op_expr.h"
#include "ugs/ir/canonical.h"

namespace ugs {

using search_detail::for_each_operands;
using search_detail::for_each_variant;
using search_detail::for_each_tile;
using search_detail::is_idle_sum;
using search_detail::savable_tiles;

namespace {

}  // namespace

Generator::Generator(const KernelGraph& program, const SearchConfig& cfg, expr::ExprPool& pool, expr::Oracle* oracle,
                     const std::atomic<bool>* stop)
    : program_(program), cfg_(cfg), pool_(pool), rules_(cfg.rules()),
      shaped_(std::make_unique<search_detail::ShapedOpsMemo>(cfg)),
      outputs_(std::make_unique<search_detail::OutputShapes>(program, cfg)), oracle_(oracle), stop_(stop),
      tables_(std::make_unique<search_detail::OpeningTables>(search_detail::kMaxTableOpenings)),
      kept_openings_(std::make_unique<search_detail::KeptOpeningsMemo>(search_detail::kMaxKeptSteps)) {
  if (cfg.expr_check == 1 && cfg.expr_reach == 1) {
    const std::vector<expr::ExprId> outputs = expr::output_exprs(pool, program);
    symbols_ = std::make_unique<search_detail::OutputSymbols>(outputs, pool, cfg);
    // The lookahead searches concrete openings: with symbolic openings, each launch's before the
    // launches left are gathered into one (block_openings.cpp).
    if (oracle_ && cfg.closing_lookahead == 1)
      closings_ = std::make_unique<search_detail::ClosingMemo>();
  }
}

Generator::~Generator() = default;

State Generator::root() const {
  State state;
  for (int i = 0; i < program_.num_inputs; ++i) {
    state.kernel.add_input(program_.shape(i));
    state.kexpr.push_back(pool_.var(i));
  }
  return state;
}

void Generator::candidates(const State& state, std::vector<Step>& out, PruneCounts& pruned,
                           const OpeningCut* cut) const {
  if (state.open && state.family.symbolic()) {
    symbolic_block_steps(state, out, pruned);
  } else if (state.open) {
    block_op_steps(state, state.block, out, pruned);
    close_steps(state, state.block, out, pruned);
  } else {
    kernel_op_steps(state, out, pruned);
    open_steps(state, out, pruned, cut);
  }
}

void Generator::kernel_op_steps(const State& state, std::vector<Step>& out, PruneCounts& pruned) const {
  const KernelGraph& kernel = state.kernel;
  if (kernel.num_inputs + kernel.ops.size() >= cfg_.max_kernel_ops) return;
  std::array<bool, kMaxTensors> is_open{};
  const FixedVec<int32_t, kMaxTensors> open = kernel.open_tensors();
  for (int32_t t : open) is_open[t] = true;
  const int64_t ops_left = cfg_.max_kernel_ops - kernel.num_inputs - kernel.ops.size() - 1;
  const int64_t blocks_left = cfg_.max_block_graphs - kernel.blocks.size();
  for (OpKind kind : cfg_.kernel_ops) {
    const int n = arity(kind);
    for_each_operands(n, is_commutative(kind), kernel.num_tensors(), [&](int a, int b) {
      for_each_variant(kind, kernel.shape(a), cfg_, [&](Op op) {
        op.in = {a, b};
        const std::array<Shape, 2> shapes{kernel.shape(a), b >= 0 ? kernel.shape(b) : Shape{}};
        Shape result;
        if (infer_shape(op, Level::Kernel, std::span(shapes.data(), n), &result) != Verdict::Ok ||
            !valid_shape(result) || is_idle_sum(kind, shapes[0], result)) {  // as KernelGraph::add_op checks
          ++pruned.shape;
          return;
        }
        if (!may_append(kernel, op)) {
          ++pruned.order;
          return;
        }
        const int consumed = is_open[a] + (b >= 0 && b != a && is_open[b]);
        if (!search_detail::kernel_can_finish(open.size() - consumed + 1, program_.outputs.size(), ops_left,
                                              blocks_left, cfg_)) {
          ++pruned.reach;
          return;
        }
        const std::array<expr::ExprId, 2> ex{state.kexpr[a], b >= 0 ? state.kexpr[b] : state.kexpr[a]};
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
// The ops' expressions come from the parts the states before filled (prefix_queries.h).
void Generator::block_op_steps(const State& state, const BlockGraph& block, std::vector<Step>& out,
                               PruneCounts& pruned) const {
  if (block.inputs.size() + block.ops.size() >= cfg_.max_block_ops) return;
  const search_detail::ShapedView shaped = shaped_->lookup(block);
  pruned.shape += shaped.rejected;
  const search_detail::BlockReach reach(
      block, search_detail::savers_allowed(state.kernel, block, program_.outputs.size(), cfg_), cfg_);
  // A block graph that must make the outputs: the facts its tiles lack bound the ops it needs
  // (output_symbols.h). With exactly that many left, each op must make one of them.
  const int64_t left = cfg_.max_block_ops - block.inputs.size() - block.ops.size();
  search_detail::OutputSymbols::Have have;
  bool tight = false;
  const bool last = symbols_ && search_detail::kernel_ops_after_block(state.kernel, cfg_) <= 0;
  if (last) {
    for (expr::ExprId e : state.bexpr) have.add(pool_.facts(e));
    const int need = symbols_->ops_needed(have);
    if (need > left) {
      for (int k = 0; k < shaped.parts; ++k) pruned.reach += shaped.size[k];
      return;
    }
    tight = need == left;
  }
  const int64_t smem = block.smem_bytes(rules_);
  const BlockAppendOrder order(block);
  // One part per tile (but for a block graph that takes no more ops: one part, empty).
  search_detail::PrefixQueries* known = nullptr;
  if (shaped.parts == block.tiles.size())
    known = &search_detail::PrefixQueries::of(shaped_->id(), block, state.bexpr.span(),
                                              std::span(shaped.size.data(), shaped.parts));
  for (int k = 0; k < shaped.parts; ++k) {
    if (!reach.part_may_pass(k)) {
      pruned.reach += shaped.size[k];
      continue;
    }
    for (uint32_t index = 0; index < shaped.size[k]; ++index) {
      const search_detail::ShapedOp* candidate = shaped.begin[k] + index;
      const Op op = candidate->op();
      if (!reach.after(op, candidate->post)) {
        ++pruned.reach;
        continue;
      }
      if (smem + int64_t{candidate->numel} * rules_.elem_bytes > rules_.smem_budget_bytes) {
        ++pruned.memory;
        continue;
      }
      if (!order.admits(op)) {
        ++pruned.order;
        continue;
      }
      const auto compute = [&] {
        const int n = arity(op.kind), a = op.in[0], b = op.in[1];
        const std::array<Shape, 2> shapes{block.tiles[a].shape, b >= 0 ? block.tiles[b].shape : Shape{}};
        const std::array<expr::ExprId, 2> ex{state.bexpr[a], b >= 0 ? state.bexpr[b] : state.bexpr[a]};
        return expr::block_op_expr(pool_, op, std::span(ex.data(), n), std::span(shapes.data(), n), block.loop);
      };
      const expr::ExprId query = known ? known->get(k, index, compute) : compute();
      if (last && left == 1 && !symbols_->is_output(query)) {  // the op's tile will be saved
        ++pruned.reach;
        continue;
      }
      if (tight) {
        search_detail::OutputSymbols::Have after = have;
        after.add(pool_.facts(query));
        if (symbols_->ops_needed(after) > left - 1) {
          ++pruned.reach;
          continue;
        }
      }
      Step& st = out.emplace_back();  // in place, as in kernel_op_steps
      st.kind = Step::Kind::BlockOp;
      st.op = op;
      st.query = query;
    }
  }
}

// One omap for all savers (as Mirage): each grid axis of size > 1 takes a distinct dim.
void Generator::close_steps(const State& state, const BlockGraph& block, std::vector<Step>& out,
                            PruneCounts& pruned) const {
  if (block.ops.empty()) return;
  const uint32_t outs = savable_tiles(block);
  if (outs == 0 || std::popcount(outs) > cfg_.max_block_outputs) return;
  // No kernel op follows: every tile saved is an output, so its expression must be one's.
  if (symbols_ && search_detail::kernel_ops_after_block(state.kernel, cfg_) <= 0 && !saves_outputs(state, outs)) {
    ++pruned.reach;
    return;
  }
  FixedVec<int, 3> radix, axes;
  for (int a = 0; a < 3; ++a)
    if (block.grid[a] > 1) {
      axes.push_back(a);
      radix.push_back(block.tiles[std::countr_zero(outs)].shape.rank);
    }
  search_detail::Odometer<3> dims(radix);
  // One copy of the block graph and of the kernel graph for every omap: each try adds the savers
  // and the closed block, then takes them off again (the graphs are kilobytes).
  BlockGraph closed = block;
  std::optional<KernelGraph> kernel;
  do {
    Step st;
    st.kind = Step::Kind::CloseBlock;
    for (int i = 0; i < axes.size(); ++i) st.omap[axes[i]] = static_cast<int8_t>(dims.digits()[i]);
    if (!cfg_.tries_omap(st.omap)) continue;
    closed.outputs.clear();
    bool ok = true;
    for_each_tile(outs, [&](int t) { ok = ok && closed.add_output(t, st.omap) == Verdict::Ok; });
    if (ok && !kernel) kernel.emplace(state.kernel);
    const Verdict verdict = ok ? kernel->add_block(closed, rules_) : Verdict::BadOmap;
    if (verdict != Verdict::Ok) {
      ++(cause(verdict) == Cause::Memory ? pruned.memory : pruned.shape);
      continue;
    }
    if (!may_append_block(state.kernel, closed))
      ++pruned.order;
    else if (!search_detail::kernel_can_finish(*kernel, program_.outputs.size(), cfg_))
      ++pruned.reach;
    else
      out.push_back(st);
    kernel->pop_op();
  } while (dims.next());
}

bool Generator::saves_outputs(const State& state, uint32_t outs) const {
  bool outputs = true;
  for_each_tile(outs, [&](int t) { outputs = outputs && symbols_->is_output(state.bexpr[t]); });
  return outputs;
}

void Generator::apply_op(State& state, const Op& op, expr::ExprId query, uint64_t launches) {
  if (state.open) {
    if (state.family.symbolic()) {
      if (launches == 0) throw std::logic_error("apply_op: a symbolic opening's op needs its launches");
      const int before = std::countr_zero(state.family.alive_now());
      state.family.alive.push_back(launches);
      if (std::countr_zero(launches) != before) rebase(state, std::countr_zero(launches));
    }
    state.block.add_op(op);
    state.bexpr.push_back(query);
  } else {
    state.kernel.add_op(op);
    state.kexpr.push_back(query);
  }
}

void Generator::apply_in_place(State& state, const Step& st) const {
  switch (st.kind) {
    case Step::Kind::KernelOp:
    case Step::Kind::BlockOp:
      apply_op(state, st.op, st.query, st.launches);
      break;
    case Step::Kind::OpenBlock:
      state.open = true;
      state.block.clear();
      state.block.grid = st.grid;
      state.block.loop = st.loop;
      state.bexpr.clear();
      open_family(state, st);
      for (const BlockInput& in : st.inputs) {
        state.block.add_input(in.tensor, state.kernel.shape(in.tensor), in.imap, in.fmap);
        state.bexpr.push_back(state.kexpr[in.tensor]);  // a loader passes its tensor's expression
      }
      break;
    case Step::Kind::CloseBlock: {
      if (state.family.symbolic()) {  // the kernel level is concrete: the closing picks one launch
        rebase(state, st.launch);
        state.family.clear();
      }
      const uint32_t outs = savable_tiles(state.block);
      for_each_tile(outs, [&](int t) { state.block.add_output(t, st.omap); });
      state.kernel.add_block(state.block, rules_);
      // A saver passes its tile's expression.
      for_each_tile(outs, [&](int t) { state.kexpr.push_back(state.bexpr[t]); });
      state.open = false;
      state.block.clear();
      state.bexpr.clear();
      break;
    }
  }
}

void Generator::undo_op(State& state) {
  if (state.open) {
    state.block.pop_op();
    state.bexpr.pop_back();
    if (state.family.symbolic()) {
      const int before = std::countr_zero(state.family.alive_now());
      state.family.alive.pop_back();
      if (std::countr_zero(state.family.alive_now()) != before) rebase(state, std::countr_zero(state.family.alive_now()));
    }
  } else {
    state.kernel.pop_op();
    state.kexpr.pop_back();
  }
}

void Generator::completions(const State& state, std::vector<KernelGraph>& out) const {
  if (state.open) return;
  const FixedVec<int32_t, kMaxTensors> open = state.kernel.open_tensors();
  const int n = program_.outputs.size();
  if (open.size() != n) return;
  std::array<int, kMaxOutputs> perm;
  std::iota(perm.begin(), perm.begin() + n, 0);
  do {
    bool match = true;
    FixedVec<int32_t, kMaxOutputs> outs;
    for (int i = 0; i < n; ++i) {
      outs.push_back(open[perm[i]]);
      match = match && state.kernel.shape(open[perm[i]]) == program_.shape(program_.outputs[i]);
    }
    KernelGraph candidate = state.kernel;
    if (match && candidate.set_outputs(outs.span()) == Verdict::Ok) out.push_back(candidate);
  } while (std::next_permutation(perm.begin(), perm.begin() + n));
}

}  // namespace ugs
