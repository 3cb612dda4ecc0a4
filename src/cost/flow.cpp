// The plans' dataflow and what a kernel of its nodes moves (the rules are in include/ugs/cost/flow.h).
#include "ugs/cost/flow.h"

#include <algorithm>
#include <string>

namespace ugs {
namespace {

int32_t add_tensor(Flow& flow, const Shape& shape, bool output) {
  flow.shapes.push_back(shape);
  flow.producer.push_back(-1);
  flow.output.push_back(output);
  return static_cast<int32_t>(flow.shapes.size()) - 1;
}

void add_node(Flow& flow, const FlowNode& node) {
  flow.producer[node.out] = static_cast<int32_t>(flow.nodes.size());
  flow.nodes.push_back(node);
}

// Appends kernel op `index` reading flow tensors a (and b) and producing flow tensor `out`.
void append_op(Flow& flow, const Op& op, int index, int32_t a, int32_t b, int32_t out) {
  if (op.kind != OpKind::RmsNorm) {
    add_node(flow, {access_of(op.kind), op.kind, false, index, {a, b}, out, name_of(op.kind)});
    return;
  }
  Shape rms = flow.shapes[a];
  rms.d[rms.rank - 1] = 1;
  const int32_t rms_out = add_tensor(flow, rms, false);
  add_node(flow, {Access::Reduction, op.kind, true, index, {a, -1}, rms_out, "rms_norm.rms"});
  add_node(flow, {Access::Elementwise, op.kind, true, index, {a, rms_out}, out, "rms_norm.div"});
}

int64_t node_flops(const Flow& flow, const FlowNode& node) {
  const Shape& a = flow.shapes[node.in[0]];
  const Shape& out = flow.shapes[node.out];
  switch (node.access) {
    case Access::Tile: return 2 * out.numel() * a.last();
    case Access::Elementwise: return out.numel();
    case Access::Reduction: return (node.rms_part ? 2 : 1) * a.numel();
  }
  return 0;
}

bool reads(const FlowNode& n, int32_t t) { return n.in[0] == t || n.in[1] == t; }

// "exp+reduce_sum+div"; rms_norm's halves print as "rms_norm" when the kernel holds both.
std::string group_label(const Flow& flow, std::span<const int> nodes) {
  std::string text;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const FlowNode& node = flow.nodes[nodes[i]];
    std::string_view label = node.label;
    const bool whole_rms = node.rms_part && i + 1 < static_cast<int>(nodes.size()) &&
                           flow.nodes[nodes[i + 1]].rms_part && flow.nodes[nodes[i + 1]].op == node.op;
    if (whole_rms) {
      label = "rms_norm";
      ++i;
    }
    text += (text.empty() ? "" : "+") + std::string(label);
  }
  return text;
}

}  // namespace

Flow flow_of(const KernelGraph& graph) {
  Flow flow;
  for (int t = 0; t < graph.num_tensors(); ++t) add_tensor(flow, graph.shape(t), false);
  for (int32_t t : graph.outputs) flow.output[t] = true;
  for (int i = 0; i < graph.ops.size(); ++i) {
    const KernelOp& k = graph.ops[i];
    append_op(flow, k.op, i, k.op.in[0], arity(k.op.kind) > 1 ? k.op.in[1] : -1, k.first_out);
  }
  return flow;
}

Flow flow_of_op(const KernelGraph& graph, int index) {
  Flow flow;
  const Op& op = graph.ops[index].op;
  const int32_t a = add_tensor(flow, graph.shape(op.in[0]), false);
  int32_t b = -1;
  if (arity(op.kind) > 1) b = op.in[1] == op.in[0] ? a : add_tensor(flow, graph.shape(op.in[1]), false);
  const int32_t out = add_tensor(flow, graph.shape(graph.ops[index].first_out), true);
  append_op(flow, op, index, a, b, out);
  return flow;
}

KernelCounts group_counts(const Flow& flow, std::span<const int> nodes, int eb) {
  std::vector<bool> inside(flow.nodes.size()), read(flow.shapes.size());
  std::vector<int> regional_readers(flow.shapes.size());
  for (int n : nodes) inside[n] = true;
  auto bytes = [&](int32_t t) { return flow.shapes[t].numel() * eb; };
  KernelCounts counts;
  counts.what = group_label(flow, nodes);
  for (int id : nodes) {
    const FlowNode& node = flow.nodes[id];
    for (int i = 0; i < 2; ++i) {
      const int32_t t = node.in[i];
      if (t < 0 || (i == 1 && t == node.in[0])) continue;  // x*x reads x once
      const int32_t p = flow.producer[t];
      if (p < 0 || !inside[p]) {
        ++counts.edges[EdgeClass::Global];
        if (!read[t]) counts.dram_read += bytes(t);
        read[t] = true;
        continue;
      }
      const EdgeClass c = classify(node.access, flow.shapes[t], flow.shapes[node.out]);
      ++counts.edges[c];
      if (c == EdgeClass::Local) counts.registers += bytes(t);
      if (c == EdgeClass::Regional) ++regional_readers[t];
    }
    (node.access == Access::Tile ? counts.mma_flops : counts.vector_flops) += node_flops(flow, node);
    if (node.access == Access::Reduction) {
      const int64_t rows = flow.shapes[node.out].numel();
      counts.blocks = counts.blocks == kFullGrid ? rows : std::min(counts.blocks, rows);
    }
  }
  for (int32_t t = 0; t < static_cast<int32_t>(flow.shapes.size()); ++t)
    if (regional_readers[t] > 0) counts.smem += bytes(t) * (1 + regional_readers[t]);
  for (int id : nodes) {
    const int32_t t = flow.nodes[id].out;
    bool leaves = flow.output[t];
    for (int m = 0; m < static_cast<int>(flow.nodes.size()) && !leaves; ++m)
      leaves = !inside[m] && reads(flow.nodes[m], t);
    if (leaves) counts.dram_write += bytes(t);
  }
  counts.dram_unique = counts.dram_read + counts.dram_write;
  return counts;
}

}  // namespace ugs
