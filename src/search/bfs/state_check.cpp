#include "search/bfs/state_check.h"

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>

#include "search/bfs/state_codec.h"
#include "ugs/expr/op_expr.h"
#include "ugs/ir/block_replay.h"

namespace ugs::search_detail {
namespace {

bool rebuild_kernel(const KernelGraph& kernel, const GraphRules& rules, KernelGraph& out) {
  if (kernel.num_inputs < 1 || kernel.num_inputs > kernel.num_tensors()) return false;
  for (int t = 0; t < kernel.num_inputs; ++t)
    if (out.add_input(kernel.shape(t)) != Verdict::Ok) return false;
  for (const KernelOp& op : kernel.ops) {
    if (op.op.kind != OpKind::Block) {
      if (out.add_op(op.op) != Verdict::Ok) return false;
      continue;
    }
    if (op.block < 0 || op.block >= kernel.blocks.size()) return false;
    if (out.add_block(kernel.blocks[op.block], rules) != Verdict::Ok) return false;
  }
  return kernel.outputs.empty() || out.set_outputs(kernel.outputs.span()) == Verdict::Ok;
}

// The launches of a symbolic opening: each mask within the launches, each tile's within the one
// before (an op only narrows them), some launch alive, the block graph built for the first alive
// one, and every alive launch loading it.
bool family_holds(const State& state, const KernelGraph& kernel) {
  const Family& family = state.family;
  if (!family.symbolic()) return family.alive.empty();
  if (!state.open || family.alive.size() != state.block.tiles.size()) return false;
  const uint64_t all = family.launches.size() == 64 ? ~uint64_t{0} : (uint64_t{1} << family.launches.size()) - 1;
  for (int i = 0; i < family.alive.size(); ++i) {
    if ((family.alive[i] & ~all) != 0) return false;
    if (i > 0 && (family.alive[i] & ~family.alive[i - 1]) != 0) return false;
  }
  const uint64_t alive = family.alive_now();
  if (alive == 0) return false;
  const Launch& first = family.launches[std::countr_zero(alive)];
  if (first.grid != state.block.grid || first.loop != state.block.loop) return false;
  BlockGraph scratch;
  for (uint64_t bits = alive; bits != 0; bits &= bits - 1) {
    const Launch& launch = family.launches[std::countr_zero(bits)];
    if (replay_block(state.block, launch.grid, launch.loop, kernel.tensors.span(), scratch) != Verdict::Ok)
      return false;
  }
  return true;
}

// The structure's bytes (length and structure, not the expression ids) of an encoded state.
Bytes structure_of(const State& state) {
  Bytes bytes;
  encode(state, bytes);
  uint16_t length;
  std::copy_n(bytes.data(), sizeof length, reinterpret_cast<uint8_t*>(&length));
  bytes.resize(sizeof length + length);
  return bytes;
}

bool op_kind_valid(const Op& op) {
  const int kind = static_cast<int>(op.kind);
  return kind >= 0 && kind < kNumOpKinds && op.kind != OpKind::Block;
}

// The expression of `op` appended to the open block graph (or the kernel graph) of `state`, whose
// operands the graph has just accepted.
expr::ExprId op_query(const State& state, const Op& op, expr::ExprPool& pool) {
  const int n = arity(op.kind), a = op.in[0], b = n > 1 ? op.in[1] : op.in[0];
  if (state.open) {
    const std::array<Shape, 2> shapes{state.block.tiles[a].shape, state.block.tiles[b].shape};
    const std::array<expr::ExprId, 2> ex{state.bexpr[a], state.bexpr[b]};
    return expr::block_op_expr(pool, op, std::span(ex.data(), n), std::span(shapes.data(), n), state.block.loop);
  }
  const std::array<Shape, 2> shapes{state.kernel.shape(a), state.kernel.shape(b)};
  const std::array<expr::ExprId, 2> ex{state.kexpr[a], state.kexpr[b]};
  return expr::kernel_op_expr(pool, op, std::span(ex.data(), n), std::span(shapes.data(), n));
}

bool exprs_match(const State& state) {
  return state.kexpr.size() == state.kernel.num_tensors() && (!state.open || state.bexpr.size() == state.block.tiles.size());
}

std::optional<expr::ExprId> op_fits(State& state, const Op& op, expr::ExprPool& pool) {
  if (!op_kind_valid(op) || !exprs_match(state)) return std::nullopt;
  if (state.open) {
    if (state.block.add_op(op) != Verdict::Ok) return std::nullopt;
    state.block.pop_op();
  } else {
    if (state.kernel.add_op(op) != Verdict::Ok) return std::nullopt;
    state.kernel.pop_op();
  }
  return op_query(state, op, pool);
}

// An op of a symbolic opening: every launch it keeps alive must take it; its query is the first one's.
std::optional<expr::ExprId> symbolic_op_fits(const State& state, const Step& st, const Generator& gen, State& scratch) {
  if (!state.open || !state.family.symbolic() || !op_kind_valid(st.op) || st.launches == 0 ||
      (st.launches & ~state.family.alive_now()) != 0 || state.family.alive.full())
    return std::nullopt;
  scratch = state;
  for (uint64_t bits = st.launches; bits != 0; bits &= bits - 1) {
    Generator::rebase(scratch, std::countr_zero(bits));
    if (scratch.block.add_op(st.op) != Verdict::Ok) return std::nullopt;
    scratch.block.pop_op();
  }
  Generator::rebase(scratch, std::countr_zero(st.launches));
  if (!exprs_match(scratch)) return std::nullopt;
  return op_query(scratch, st.op, gen.pool());
}

bool opening_fits(const State& state, const Step& st, const Generator& gen, State& scratch) {
  if (state.open || st.inputs.size() < 1 || st.inputs.size() > kMaxBlockInputs || st.loop < 1) return false;
  for (int32_t g : st.grid)
    if (g < 1) return false;
  for (const BlockInput& in : st.inputs)
    if (in.tensor < 0 || in.tensor >= state.kernel.num_tensors()) return false;
  scratch = state;
  try {
    gen.apply_in_place(scratch, st);  // a symbolic opening's launches are looked up checked (at())
  } catch (const std::out_of_range&) {
    return false;
  }
  BlockGraph replayed;
  return scratch.block.inputs.size() == st.inputs.size() && exprs_match(scratch) &&
         replay_block(scratch.block, scratch.block.grid, scratch.block.loop, scratch.kernel.tensors.span(),
                      replayed) == Verdict::Ok &&
         family_holds(scratch, scratch.kernel);
}

bool closing_fits(const State& state, const Step& st, const Generator& gen, State& scratch) {
  if (!state.open || !exprs_match(state)) return false;
  if (state.family.symbolic() &&
      (st.launch < 0 || st.launch >= state.family.launches.size() || !(state.family.alive_now() >> st.launch & 1)))
    return false;
  for (int8_t d : st.omap)
    if (d < kNoDim || d >= kMaxRank) return false;
  scratch = state;
  gen.apply_in_place(scratch, st);
  // The kernel graph replays the block graph as it takes it: a closing it refused leaves it as it was.
  return scratch.kernel.blocks.size() == state.kernel.blocks.size() + 1 && exprs_match(scratch);
}

}  // namespace

std::optional<expr::ExprId> step_fits(State& state, const Step& step, const Generator& gen, State& scratch) {
  switch (step.kind) {
    case Step::Kind::KernelOp:
      return state.open ? std::nullopt : op_fits(state, step.op, gen.pool());
    case Step::Kind::BlockOp:
      if (step.launches != 0) return symbolic_op_fits(state, step, gen, scratch);
      return !state.open || state.family.symbolic() ? std::nullopt : op_fits(state, step.op, gen.pool());
    case Step::Kind::OpenBlock:
      return opening_fits(state, step, gen, scratch) ? std::optional(kNoQuery) : std::nullopt;
    case Step::Kind::CloseBlock:
      return closing_fits(state, step, gen, scratch) ? std::optional(kNoQuery) : std::nullopt;
  }
  return std::nullopt;  // a kind no step has
}

bool well_formed(const State& state, const GraphRules& rules) {
  State rebuilt;
  if (!rebuild_kernel(state.kernel, rules, rebuilt.kernel)) return false;
  rebuilt.open = state.open;
  if (state.open && replay_block(state.block, state.block.grid, state.block.loop, rebuilt.kernel.tensors.span(),
                                 rebuilt.block) != Verdict::Ok)
    return false;
  if (!family_holds(state, rebuilt.kernel)) return false;
  rebuilt.family = state.family;
  rebuilt.kexpr = state.kexpr;
  rebuilt.bexpr = state.bexpr;
  return structure_of(rebuilt) == structure_of(state);
}

}  // namespace ugs::search_detail
