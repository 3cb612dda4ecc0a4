// Bytes, flops and edges of one block graph (the rules are in include/ugs/cost/block_counts.h).
#include "ugs/cost/block_counts.h"

#include <fmt/format.h>

#include "ugs/cost/edges.h"
#include "ugs/eval/op_count.h"

namespace ugs {
namespace {

// How many times block op j runs in one block: every iteration, or once after the loop.
int64_t runs(const BlockGraph& bg, int j) {
  const bool after_loop = bg.tiles[bg.inputs.size() + j].post && !is_accumulator(bg.ops[j].kind);
  return after_loop ? 1 : bg.loop;
}

// How many times tile t is written in one block: a loader per load, an accumulator once (its final
// value), any other op per run.
int64_t writes(const BlockGraph& bg, int t) {
  const int ni = bg.inputs.size();
  if (t < ni) return bg.inputs[t].fmap == kNoDim ? 1 : bg.loop;
  return is_accumulator(bg.ops[t - ni].kind) ? 1 : runs(bg, t - ni);
}

// Copies of a tensor that the grid loads: every block along an axis that does not split it.
int64_t replicas(const BlockGraph& bg, const BlockInput& in) {
  int64_t r = 1;
  for (int a = 0; a < 3; ++a)
    if (in.imap[a] == kNoDim) r *= bg.grid[a];
  return r;
}

void count_device_memory(const KernelGraph& graph, const BlockGraph& bg, int eb, KernelCounts& counts) {
  for (int i = 0; i < bg.inputs.size(); ++i) {
    const BlockInput& in = bg.inputs[i];
    const int64_t bytes = graph.shape(in.tensor).numel() * eb;
    counts.dram_read += bytes * replicas(bg, in);
    bool seen = false;  // a tensor loaded twice is read from device memory once if replicas hit L2
    for (int j = 0; j < i; ++j) seen |= bg.inputs[j].tensor == in.tensor;
    if (!seen) counts.dram_unique += bytes;
    ++counts.edges[EdgeClass::Global];
  }
  for (int i = 0; i < bg.outputs.size(); ++i) {
    counts.dram_write += bg.output_shape(i).numel() * eb;
    ++counts.edges[EdgeClass::Global];
  }
  counts.dram_unique += counts.dram_write;
}

// Per block: shared-memory and register bytes, flops, and the edges inside the block.
void count_on_chip(const BlockGraph& bg, int eb, KernelCounts& counts) {
  const int ni = bg.inputs.size();
  std::array<bool, kMaxTiles> regional{};
  for (int t = 0; t < ni; ++t) regional[t] = true;  // loads land in shared memory
  for (int j = 0; j < bg.ops.size(); ++j) {
    const Op& op = bg.ops[j];
    const Shape& out = bg.tiles[ni + j].shape;
    const Shape& a = bg.tiles[op.in[0]].shape;
    for (int i = 0; i < arity(op.kind); ++i) {
      const int t = op.in[i];
      if (i == 1 && t == op.in[0]) continue;  // x*x reads x once
      const Shape& s = bg.tiles[t].shape;
      const EdgeClass c = t < ni ? EdgeClass::Regional : classify(access_of(op.kind), s, out);
      ++counts.edges[c];
      (c == EdgeClass::Local ? counts.registers : counts.smem) += s.numel() * eb * runs(bg, j);
      regional[t] = regional[t] || c == EdgeClass::Regional;
    }
    const int64_t n = runs(bg, j);
    if (op.kind == OpKind::Matmul)
      counts.mma_flops += 2 * out.numel() * a.last() * n;
    else
      counts.vector_flops += scalar_ops(op, a, out) * n;
    if (op.kind == OpKind::RmsNorm) counts.smem += 2 * (out.numel() / out.last()) * eb * n;  // row rms
  }
  for (int t = 0; t < bg.tiles.size(); ++t)
    if (regional[t]) counts.smem += bg.tiles[t].shape.numel() * eb * writes(bg, t);
}

}  // namespace

KernelCounts block_counts(const KernelGraph& graph, const BlockGraph& bg, int elem_bytes) {
  KernelCounts counts;
  counts.what = fmt::format("block {}x{}x{} loop {}", bg.grid[0], bg.grid[1], bg.grid[2], bg.loop);
  counts.blocks = bg.num_blocks();
  count_on_chip(bg, elem_bytes, counts);
  counts.smem *= counts.blocks;
  counts.registers *= counts.blocks;
  counts.mma_flops *= counts.blocks;
  counts.vector_flops *= counts.blocks;
  count_device_memory(graph, bg, elem_bytes, counts);
  return counts;
}

}  // namespace ugs
