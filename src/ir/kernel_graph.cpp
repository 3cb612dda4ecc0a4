// Validating construction of kernel graphs (docs/design.md §2).
#include <array>

#include "ugs/ir/block_replay.h"
#include "ugs/ir/graph.h"

namespace ugs {

Verdict KernelGraph::add_input(const Shape& s) {
  if (!ops.empty()) return Verdict::Order;
  if (num_inputs == kMaxKernelInputs || tensors.full()) return Verdict::TooMany;
  if (!valid_shape(s)) return Verdict::TooLarge;
  tensors.push_back(s);
  ++num_inputs;
  return Verdict::Ok;
}

Verdict KernelGraph::add_op(const Op& op) {
  if (ops.full() || tensors.full()) return Verdict::TooMany;
  const int n = arity(op.kind);
  std::array<Shape, 2> shapes;
  for (int i = 0; i < n; ++i) {
    if (op.in[i] < 0 || op.in[i] >= tensors.size()) return Verdict::BadOperand;
    shapes[i] = tensors[op.in[i]];
  }
  Shape& out = tensors.spare();  // built in place, as BlockGraph::add_op's tile
  if (Verdict v = infer_shape(op, Level::Kernel, std::span(shapes.data(), n), &out); v != Verdict::Ok) return v;
  if (!valid_shape(out)) return Verdict::TooLarge;
  KernelOp& k = ops.spare();
  k.op = op;
  k.block = -1;
  k.first_out = static_cast<int16_t>(tensors.size());
  k.num_out = 1;
  ops.push_spare();
  tensors.push_spare();
  return Verdict::Ok;
}

// Replays the block graph's construction against this graph's tensor shapes, so a block graph built
// elsewhere (a file, a mutant) is checked exactly as one built step by step.
Verdict KernelGraph::add_block(const BlockGraph& bg, const GraphRules& rules) {
  if (ops.full() || blocks.full() || tensors.size() + bg.outputs.size() > kMaxTensors) return Verdict::TooMany;
  // Replayed in the slot past the last block graph, which joins only if it is valid: no copy of it.
  BlockGraph& b = blocks.spare();
  if (Verdict v = replay_block(bg, bg.grid, bg.loop, tensors.span(), b); v != Verdict::Ok) return v;
  if (Verdict v = b.check_complete(rules); v != Verdict::Ok) return v;
  for (int i = 0; i < b.outputs.size(); ++i)
    if (!valid_shape(b.output_shape(i))) return Verdict::TooLarge;

  Op op;
  op.kind = OpKind::Block;
  ops.push_back({op, static_cast<int8_t>(blocks.size()), static_cast<int16_t>(tensors.size()),
                 static_cast<int8_t>(b.outputs.size())});
  for (int i = 0; i < b.outputs.size(); ++i) tensors.push_back(b.output_shape(i));
  blocks.push_spare();
  return Verdict::Ok;
}

void KernelGraph::pop_op() {
  const KernelOp& k = ops.back();
  for (int i = 0; i < k.num_out; ++i) tensors.pop_back();
  if (k.op.kind == OpKind::Block) blocks.pop_back();
  ops.pop_back();
}

Verdict KernelGraph::set_outputs(std::span<const int32_t> outs) {
  if (outs.empty()) return Verdict::NoOutputs;
  if (static_cast<int>(outs.size()) > kMaxOutputs) return Verdict::TooMany;
  outputs.clear();
  for (int32_t t : outs) {
    if (t < num_inputs || t >= tensors.size()) return Verdict::BadOperand;
    for (int32_t u : outputs)
      if (u == t) return Verdict::BadOperand;
    outputs.push_back(t);
  }
  return Verdict::Ok;
}

int KernelGraph::producer(int t) const {
  for (int i = 0; i < ops.size(); ++i)
    if (t >= ops[i].first_out && t < ops[i].first_out + ops[i].num_out) return i;
  return -1;
}

FixedVec<int32_t, kMaxBlockInputs> KernelGraph::operands(int i) const {
  FixedVec<int32_t, kMaxBlockInputs> r;
  const KernelOp& k = ops[i];
  if (k.op.kind == OpKind::Block) {
    for (const BlockInput& in : blocks[k.block].inputs) r.push_back(in.tensor);
  } else {
    for (int j = 0; j < arity(k.op.kind); ++j) r.push_back(k.op.in[j]);
  }
  return r;
}

FixedVec<int32_t, kMaxTensors> KernelGraph::open_tensors() const {
  static_assert(kMaxTensors <= 64);
  uint64_t used = 0;  // bits: a search asks this of every state, and a bool array is zeroed each time
  for (int i = 0; i < ops.size(); ++i)
    for (int32_t t : operands(i)) used |= uint64_t{1} << t;
  FixedVec<int32_t, kMaxTensors> open;
  for (int t = 0; t < tensors.size(); ++t)
    if (!(used >> t & 1)) open.push_back(t);
  return open;
}

Verdict KernelGraph::check_complete() const {
  if (outputs.empty()) return Verdict::NoOutputs;
  for (int32_t t : open_tensors()) {
    bool is_output = false;
    for (int32_t o : outputs) is_output |= o == t;
    if (!is_output) return Verdict::Unused;
  }
  return Verdict::Ok;
}

}  // namespace ugs
