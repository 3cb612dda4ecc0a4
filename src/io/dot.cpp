#include "ugs/io/dot.h"

#include <fmt/format.h>

#include <algorithm>

namespace ugs {
namespace {

std::string axes(const Axes& a) { return fmt::format("[{}, {}, {}]", a[0], a[1], a[2]); }

std::string op_label(const Op& op) {
  std::string s(name_of(op.kind));
  if (has_dim(op.kind)) s += fmt::format(" dim={}", op.dim);
  if (has_to(op.kind)) s += fmt::format(" to={}", op.to);
  return s;
}

void block_cluster(std::string& out, const KernelGraph& graph, int op_index) {
  const KernelOp& ko = graph.ops[op_index];
  const BlockGraph& bg = graph.blocks[ko.block];
  out +=
      fmt::format("  subgraph cluster_k{} {{\n    label=\"block graph: grid [{}, {}, {}], loop {}\"; style=rounded;\n",
                  op_index, bg.grid[0], bg.grid[1], bg.grid[2], bg.loop);
  const int ni = bg.inputs.size();
  for (int i = 0; i < ni; ++i) {
    const BlockInput& in = bg.inputs[i];
    out += fmt::format("    k{}_{} [label=\"load imap {} fmap {}\\n{}\", shape=invhouse];\n", op_index, i,
                       axes(in.imap), in.fmap, to_string(bg.tiles[i].shape));
  }
  for (int j = 0; j < bg.ops.size(); ++j) {
    const Op& op = bg.ops[j];
    out += fmt::format("    k{}_{} [label=\"{}\\n{}\"{}];\n", op_index, ni + j, op_label(op),
                       to_string(bg.tiles[ni + j].shape),
                       is_accumulator(op.kind) ? ", style=filled, fillcolor=lightyellow" : "");
    for (int a = 0; a < arity(op.kind); ++a)
      out += fmt::format("    k{}_{} -> k{}_{};\n", op_index, op.in[a], op_index, ni + j);
  }
  for (int o = 0; o < bg.outputs.size(); ++o)
    out += fmt::format("    k{}_s{} [label=\"save omap {}\", shape=house];\n    k{}_{} -> k{}_s{};\n", op_index, o,
                       axes(bg.outputs[o].omap), op_index, bg.outputs[o].tile, op_index, o);
  out += "  }\n";
  for (int i = 0; i < ni; ++i) out += fmt::format("  t{} -> k{}_{};\n", bg.inputs[i].tensor, op_index, i);
  for (int o = 0; o < ko.num_out; ++o) out += fmt::format("  k{}_s{} -> t{};\n", op_index, o, ko.first_out + o);
}

}  // namespace

std::string to_dot(const KernelGraph& graph, const std::vector<std::string>& input_names) {
  std::string out = "digraph mugraph {\n  graph [fontname=\"Helvetica\"];\n  node [shape=box, fontname=\"Helvetica\"];\n";
  for (int t = 0; t < graph.num_tensors(); ++t) {
    const bool is_out = std::find(graph.outputs.begin(), graph.outputs.end(), t) != graph.outputs.end();
    const std::string name = t < graph.num_inputs
                                 ? (t < static_cast<int>(input_names.size()) ? input_names[t] : fmt::format("in{}", t))
                                 : fmt::format("t{}", t);
    out += fmt::format("  t{} [label=\"{}\\n{}\", shape=ellipse{}];\n", t, name, to_string(graph.shape(t)),
                       is_out ? ", peripheries=2" : "");
  }
  for (int k = 0; k < graph.ops.size(); ++k) {
    const KernelOp& ko = graph.ops[k];
    if (ko.op.kind == OpKind::Block) {
      block_cluster(out, graph, k);
      continue;
    }
    out += fmt::format("  k{} [label=\"{}\"];\n", k, op_label(ko.op));
    for (int a = 0; a < arity(ko.op.kind); ++a) out += fmt::format("  t{} -> k{};\n", ko.op.in[a], k);
    out += fmt::format("  k{} -> t{};\n", k, ko.first_out);
  }
  return out + "}\n";
}

}  // namespace ugs
