#include "search/bfs/state_check.h"

#include <algorithm>
#include <bit>

#include "search/bfs/state_codec.h"
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

}  // namespace

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
