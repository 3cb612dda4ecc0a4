// The plans' dataflow and what a kernel of its nodes moves (the rules are in include/ugs/cost/flow.h).
#include "ugs/cost/flow.h"

#include <algorithm>
#include <string>

namespace ugs {
namespace {

int32_t add_tensor(Flow& f, const Shape& s, bool output) {
  f.shapes.push_back(s);
  f.producer.push_back(-1);
  f.output.push_back(output);
  return static_cast<int32_t>(f.shapes.size()) - 1;
}

void add_node(Flow& f, const FlowNode& n) {
  f.producer[n.out] = static_cast<int32_t>(f.nodes.size());
  f.nodes.push_back(n);
}

// Appends kernel op `index` reading flow tensors a (and b) and producing flow tensor `out`.
void append_op(Flow& f, const Op& op, int index, int32_t a, int32_t b, int32_t out) {
  if (op.kind != OpKind::RmsNorm) {
    add_node(f, {access_of(op.kind), op.kind, false, index, {a, b}, out, name_of(op.kind)});
    return;
  }
  Shape rms = f.shapes[a];
  rms.d[rms.rank - 1] = 1;
  const int32_t r = add_tensor(f, rms, false);
  add_node(f, {Access::Reduction, op.kind, true, index, {a, -1}, r, "rms_norm.rms"});
  add_node(f, {Access::Elementwise, op.kind, true, index, {a, r}, out, "rms_norm.div"});
}

int64_t node_flops(const Flow& f, const FlowNode& n) {
  const Shape& a = f.shapes[n.in[0]];
  const Shape& out = f.shapes[n.out];
  switch (n.access) {
    case Access::Tile: return 2 * out.numel() * a.last();
    case Access::Elementwise: return out.numel();
    case Access::Reduction: return (n.rms_part ? 2 : 1) * a.numel();
  }
  return 0;
}

bool reads(const FlowNode& n, int32_t t) { return n.in[0] == t || n.in[1] == t; }

// "exp+reduce_sum+div"; rms_norm's halves print as "rms_norm" when the kernel holds both.
std::string group_label(const Flow& f, std::span<const int> nodes) {
  std::string s;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const FlowNode& n = f.nodes[nodes[i]];
    std::string_view label = n.label;
    const bool whole_rms = n.rms_part && i + 1 < static_cast<int>(nodes.size()) &&
                           f.nodes[nodes[i + 1]].rms_part && f.nodes[nodes[i + 1]].op == n.op;
    if (whole_rms) {
      label = "rms_norm";
      ++i;
    }
    s += (s.empty() ? "" : "+") + std::string(label);
  }
  return s;
}

}  // namespace

Flow flow_of(const KernelGraph& g) {
  Flow f;
  for (int t = 0; t < g.num_tensors(); ++t) add_tensor(f, g.shape(t), false);
  for (int32_t t : g.outputs) f.output[t] = true;
  for (int i = 0; i < g.ops.size(); ++i) {
    const KernelOp& k = g.ops[i];
    append_op(f, k.op, i, k.op.in[0], arity(k.op.kind) > 1 ? k.op.in[1] : -1, k.first_out);
  }
  return f;
}

Flow flow_of_op(const KernelGraph& g, int op) {
  Flow f;
  const Op& o = g.ops[op].op;
  const int32_t a = add_tensor(f, g.shape(o.in[0]), false);
  int32_t b = -1;
  if (arity(o.kind) > 1) b = o.in[1] == o.in[0] ? a : add_tensor(f, g.shape(o.in[1]), false);
  const int32_t out = add_tensor(f, g.shape(g.ops[op].first_out), true);
  append_op(f, o, op, a, b, out);
  return f;
}

KernelCounts group_counts(const Flow& f, std::span<const int> nodes, int eb) {
  std::vector<bool> inside(f.nodes.size()), read(f.shapes.size());
  std::vector<int> regional_readers(f.shapes.size());
  for (int n : nodes) inside[n] = true;
  auto bytes = [&](int32_t t) { return f.shapes[t].numel() * eb; };
  KernelCounts k;
  k.what = group_label(f, nodes);
  for (int id : nodes) {
    const FlowNode& n = f.nodes[id];
    for (int i = 0; i < 2; ++i) {
      const int32_t t = n.in[i];
      if (t < 0 || (i == 1 && t == n.in[0])) continue;  // x*x reads x once
      const int32_t p = f.producer[t];
      if (p < 0 || !inside[p]) {
        ++k.edges[EdgeClass::Global];
        if (!read[t]) k.dram_read += bytes(t);
        read[t] = true;
        continue;
      }
      const EdgeClass c = classify(n.access, f.shapes[t], f.shapes[n.out]);
      ++k.edges[c];
      if (c == EdgeClass::Local) k.registers += bytes(t);
      if (c == EdgeClass::Regional) ++regional_readers[t];
    }
    (n.access == Access::Tile ? k.mma_flops : k.vector_flops) += node_flops(f, n);
    if (n.access == Access::Reduction) {
      const int64_t rows = f.shapes[n.out].numel();
      k.blocks = k.blocks == kFullGrid ? rows : std::min(k.blocks, rows);
    }
  }
  for (int32_t t = 0; t < static_cast<int32_t>(f.shapes.size()); ++t)
    if (regional_readers[t] > 0) k.smem += bytes(t) * (1 + regional_readers[t]);
  for (int id : nodes) {
    const int32_t t = f.nodes[id].out;
    bool leaves = f.output[t];
    for (int m = 0; m < static_cast<int>(f.nodes.size()) && !leaves; ++m) leaves = !inside[m] && reads(f.nodes[m], t);
    if (leaves) k.dram_write += bytes(t);
  }
  k.dram_unique = k.dram_read + k.dram_write;
  return k;
}

}  // namespace ugs
