#include "ugs/io/text.h"

#include <fmt/format.h>

namespace ugs {
namespace {

std::string attrs(const Op& op) {
  std::string s;
  if (has_dim(op.kind)) s += fmt::format(" dim={}", op.dim);
  if (has_to(op.kind)) s += fmt::format(" to={}", op.to);
  return s;
}

std::string operands(const Op& op, char prefix) {
  std::string s;
  for (int i = 0; i < arity(op.kind); ++i) s += fmt::format("{}{}{}", i ? ", " : "", prefix, op.in[i]);
  return s;
}

std::string axes(const Axes& a) { return fmt::format("[{}, {}, {}]", a[0], a[1], a[2]); }

void block_text(std::string& out, const BlockGraph& bg) {
  const int ni = bg.inputs.size();
  for (int i = 0; i < ni; ++i)
    out += fmt::format("    b{} = load t{}  imap {} fmap {}  {}\n", i, bg.inputs[i].tensor, axes(bg.inputs[i].imap),
                       bg.inputs[i].fmap, to_string(bg.tiles[i].shape));
  for (int k = 0; k < bg.ops.size(); ++k)
    out += fmt::format("    b{} = {}({}){}  {}{}\n", ni + k, name_of(bg.ops[k].kind), operands(bg.ops[k], 'b'),
                       attrs(bg.ops[k]), to_string(bg.tiles[ni + k].shape), bg.tiles[ni + k].post ? "  (after loop)" : "");
  for (const BlockOutput& o : bg.outputs) out += fmt::format("    save b{}  omap {}\n", o.tile, axes(o.omap));
}

}  // namespace

std::string to_text(const KernelGraph& graph) {
  std::string out;
  for (int t = 0; t < graph.num_inputs; ++t) out += fmt::format("t{} = input  {}\n", t, to_string(graph.shape(t)));
  for (const KernelOp& kernel_op : graph.ops) {
    if (kernel_op.op.kind != OpKind::Block) {
      out +=
          fmt::format("t{} = {}({}){}  {}\n", kernel_op.first_out, name_of(kernel_op.op.kind),
                      operands(kernel_op.op, 't'), attrs(kernel_op.op), to_string(graph.shape(kernel_op.first_out)));
      continue;
    }
    const BlockGraph& bg = graph.blocks[kernel_op.block];
    std::string outs;
    for (int o = 0; o < kernel_op.num_out; ++o)
      outs += fmt::format("{}t{} {}", o ? ", " : "", kernel_op.first_out + o,
                          to_string(graph.shape(kernel_op.first_out + o)));
    out += fmt::format("{} = block  grid [{}, {}, {}]  loop {}\n", outs, bg.grid[0], bg.grid[1], bg.grid[2], bg.loop);
    block_text(out, bg);
  }
  std::string outs;
  for (int32_t t : graph.outputs) outs += fmt::format("{}t{}", outs.empty() ? "" : ", ", t);
  return out + "outputs: " + outs + "\n";
}

}  // namespace ugs
