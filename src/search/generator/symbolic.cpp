// Symbolic openings (state.h, Family): a block graph opened with its inputs and maps, its numbers (grid
// and loop range) any of a list of launches. The steps inside are each launch's concrete steps, merged:
// one step per op and expression, with the launches that take it. So the search holds one state where
// the concrete search held one per launch, and does each launch's checks (shapes, shared memory, order,
// dead ends, expression) exactly as the concrete search does: the same μGraphs come out.
#include <algorithm>
#include <bit>
#include <stdexcept>

#include "ugs/ir/block_replay.h"
#include "ugs/search/generator/generator.h"
#include "ugs/util/hash.h"

namespace ugs {

namespace {

// `block`, its inputs and ops kept, rebuilt for `launch`: its tiles follow the new numbers.
void rebuild(BlockGraph& block, const KernelGraph& kernel, const Launch& launch) {
  if (replay_block(block, launch.grid, launch.loop, kernel.tensors.span(), block) != Verdict::Ok)
    throw std::logic_error("rebuild: a launch of the opening that cannot build its block graph");
}

// The block graph of `state` under one of its launches: the state's own for the first launch alive,
// else rebuilt into `scratch`.
const BlockGraph& launch_block(const State& state, int launch, BlockGraph& scratch) {
  if (launch == std::countr_zero(state.family.alive_now())) return state.block;
  scratch = state.block;
  rebuild(scratch, state.kernel, state.family.launches[launch]);
  return scratch;
}

// A block op step's identity across launches: its op and expression.
size_t op_key_hash(const Op& op, expr::ExprId query) {
  const uint64_t packed = static_cast<uint64_t>(op.kind) | uint64_t{static_cast<uint8_t>(op.dim)} << 8 |
                          uint64_t{static_cast<uint8_t>(op.in[0])} << 16 |
                          uint64_t{static_cast<uint8_t>(op.in[1])} << 24 | uint64_t{static_cast<uint32_t>(op.to)} << 32;
  return static_cast<size_t>(splitmix64(packed ^ (uint64_t{query} * 0x9E3779B97F4A7C15ull)));
}

uint64_t all_of(int n) { return n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

}  // namespace

void Generator::rebase(State& state, int launch) { rebuild(state.block, state.kernel, state.family.launches[launch]); }

void Generator::open_family(State& state, const Step& opening) const {
  state.family.clear();
  if (opening.launches == 0) return;
  thread_local std::vector<Launch> table;
  FixedVec<int32_t, kMaxBlockInputs> ins;
  for (const BlockInput& in : opening.inputs) ins.push_back(in.tensor);
  launch_table(state.kernel, ins.span(), table);
  for (uint64_t bits = opening.launches; bits != 0; bits &= bits - 1)
    state.family.launches.push_back(table.at(opening.launch_base + std::countr_zero(bits)));
  for (int i = 0; i < opening.inputs.size(); ++i) state.family.alive.push_back(all_of(state.family.launches.size()));
}

void Generator::symbolic_block_steps(const State& state, std::vector<Step>& out, PruneCounts& pruned) const {
  thread_local std::vector<Step> each, closings;
  thread_local std::vector<int8_t> launch_of;
  thread_local std::vector<uint32_t> slots;  // open addressing over (op, expression): 1 + index into out
  thread_local BlockGraph block;
  each.clear();
  launch_of.clear();
  closings.clear();
  for (uint64_t bits = state.family.alive_now(); bits != 0; bits &= bits - 1) {
    const int launch = std::countr_zero(bits);
    const BlockGraph& here = launch_block(state, launch, block);
    block_op_steps(state, here, each, pruned);
    launch_of.resize(each.size(), static_cast<int8_t>(launch));
    const size_t closing = closings.size();
    close_steps(state, here, closings, pruned);
    for (size_t i = closing; i < closings.size(); ++i) closings[i].launch = static_cast<int8_t>(launch);
  }
  // Merged by hashing: where expressions differ between launches, most steps of a launch match none.
  size_t size = 64;
  while (size < 2 * each.size()) size *= 2;
  slots.assign(size, 0);
  const size_t first = out.size();
  for (size_t i = 0; i < each.size(); ++i) {
    const Step& st = each[i];
    const uint64_t bit = uint64_t{1} << launch_of[i];
    size_t at = op_key_hash(st.op, st.query) & (size - 1);
    for (; slots[at] != 0; at = (at + 1) & (size - 1)) {
      Step& seen = out[first + slots[at] - 1];
      if (seen.op == st.op && seen.query == st.query) break;
    }
    if (slots[at] != 0) {
      out[first + slots[at] - 1].launches |= bit;
    } else {
      slots[at] = static_cast<uint32_t>(out.size() - first + 1);
      out.push_back(st);
      out.back().launches = bit;
    }
  }
  out.insert(out.end(), closings.begin(), closings.end());
}

}  // namespace ugs
