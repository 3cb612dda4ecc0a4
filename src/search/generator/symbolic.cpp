// Symbolic openings (state.h, Family): a block graph opened with its inputs and maps, its numbers (grid
// and loop range) any of a list of launches. The steps inside are each launch's concrete steps, merged:
// one step per op and expression, with the launches that take it. So the search holds one state where
// the concrete search held one per launch, and does each launch's checks (shapes, shared memory, order,
// dead ends, expression) exactly as the concrete search does: the same μGraphs come out.
#include <bit>
#include <unordered_map>

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

// A block op step's identity across launches: the op and its expression.
struct OpKey {
  Op op;
  expr::ExprId query;
  friend bool operator==(const OpKey&, const OpKey&) = default;
};
struct OpKeyHash {
  size_t operator()(const OpKey& k) const {
    uint64_t h = static_cast<uint64_t>(k.op.kind) | uint64_t{static_cast<uint8_t>(k.op.dim)} << 8 |
                 uint64_t{static_cast<uint8_t>(k.op.in[0])} << 16 | uint64_t{static_cast<uint8_t>(k.op.in[1])} << 24 |
                 uint64_t{static_cast<uint32_t>(k.op.to)} << 32;
    h ^= uint64_t{k.query} * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

}  // namespace

void Generator::rebase(State& state, int launch) { rebuild(state.block, state.kernel, state.family.launches[launch]); }

void Generator::open_family(State& state, const Step& opening) const {
  state.family = Family{};
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
  thread_local std::unordered_map<OpKey, size_t, OpKeyHash> merged;
  thread_local BlockGraph block;
  merged.clear();
  closings.clear();
  for (uint64_t bits = state.family.alive_now(); bits != 0; bits &= bits - 1) {
    const int launch = std::countr_zero(bits);
    const BlockGraph& here = launch_block(state, launch, block);
    each.clear();
    block_op_steps(state, here, each, pruned);
    for (Step& st : each) {
      const auto [at, fresh] = merged.try_emplace(OpKey{st.op, st.query}, out.size());
      if (fresh) {
        st.launches = uint64_t{1} << launch;
        out.push_back(st);
      } else {
        out[at->second].launches |= uint64_t{1} << launch;
      }
    }
    const size_t first = closings.size();
    close_steps(state, here, closings, pruned);
    for (size_t i = first; i < closings.size(); ++i) closings[i].launch = static_cast<int8_t>(launch);
  }
  out.insert(out.end(), closings.begin(), closings.end());
}

uint64_t Generator::launches_after(const State& state, const Op& op, expr::ExprId query) const {
  thread_local std::vector<Step> each;
  thread_local BlockGraph block;
  PruneCounts ignored;
  uint64_t launches = 0;
  for (uint64_t bits = state.family.alive_now(); bits != 0; bits &= bits - 1) {
    const int launch = std::countr_zero(bits);
    each.clear();
    block_op_steps(state, launch_block(state, launch, block), each, ignored, &op);
    for (const Step& st : each)
      if (st.op == op && st.query == query) launches |= uint64_t{1} << launch;
  }
  return launches;
}

}  // namespace ugs
