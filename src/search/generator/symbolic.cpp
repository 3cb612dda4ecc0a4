// Symbolic openings (state.h, Family): a block graph opened with its inputs and maps, its numbers (grid
// and loop range) any of a list of launches. The steps inside are each launch's concrete steps, merged:
// one step per op and expression, with the launches that take it. So the search holds one state where
// the concrete search held one per launch, and does each launch's checks (shapes, shared memory, order,
// dead ends, expression) exactly as the concrete search does: the same μGraphs come out.
#include <algorithm>
#include <bit>
#include <stdexcept>

#include "ugs/search/generator/generator.h"

namespace ugs {

namespace {

// `block`, its inputs and ops kept, rebuilt for `launch`: its tiles follow the new numbers.
void rebuild(BlockGraph& block, const KernelGraph& kernel, const Launch& launch) {
  const FixedVec<BlockInput, kMaxBlockInputs> inputs = block.inputs;
  const FixedVec<Op, kMaxBlockOps> ops = block.ops;
  block.clear();
  block.grid = launch.grid;
  block.loop = launch.loop;
  for (const BlockInput& in : inputs)
    if (block.add_input(in.tensor, kernel.shape(in.tensor), in.imap, in.fmap) != Verdict::Ok)
      throw std::logic_error("rebuild: a launch that cannot load the block graph's inputs");
  for (const Op& op : ops)
    if (block.add_op(op) != Verdict::Ok) throw std::logic_error("rebuild: a launch that cannot take an op");
}

// The block graph of `state` under one of its launches: the state's own for the first launch alive,
// else rebuilt into `scratch`.
const BlockGraph& launch_block(const State& state, int launch, BlockGraph& scratch) {
  if (launch == std::countr_zero(state.family.alive_now())) return state.block;
  scratch = state.block;
  rebuild(scratch, state.kernel, state.family.launches[launch]);
  return scratch;
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
  thread_local BlockGraph block;
  closings.clear();
  const size_t first = out.size();
  for (uint64_t bits = state.family.alive_now(); bits != 0; bits &= bits - 1) {
    const int launch = std::countr_zero(bits);
    const BlockGraph& here = launch_block(state, launch, block);
    each.clear();
    block_op_steps(state, here, each, pruned);
    // Every launch enumerates ops in one order, so a step's match is nearly always just past the last
    // one's: looked for there first, then from the start.
    const size_t merged = out.size();
    size_t from = first;
    for (Step& st : each) {
      const auto same = [&](const Step& o) { return o.op == st.op && o.query == st.query; };
      const auto end = out.begin() + merged;
      auto at = std::find_if(out.begin() + from, end, same);
      if (at == end) {
        const auto before = std::find_if(out.begin() + first, out.begin() + from, same);
        if (before != out.begin() + from) at = before;
      }
      if (at != end) {
        at->launches |= uint64_t{1} << launch;
        from = at - out.begin() + 1;
      } else {
        st.launches = uint64_t{1} << launch;
        out.push_back(st);
      }
    }
    const size_t closing = closings.size();
    close_steps(state, here, closings, pruned);
    for (size_t i = closing; i < closings.size(); ++i) closings[i].launch = static_cast<int8_t>(launch);
  }
  out.insert(out.end(), closings.begin(), closings.end());
}

}  // namespace ugs
