// Validating construction of block graphs (docs/design.md §2: imap, fmap, loop, accumulators, savers).
#include <array>

#include "ugs/ir/block_replay.h"
#include "ugs/ir/graph.h"

namespace ugs {
namespace {

bool valid_shape_dim(int d, const Shape& s) { return d >= 0 && d < s.rank; }

// Each axis maps a distinct data dim or none; an axis of size 1 maps none (so a μGraph has one
// spelling). With `need_all`, every axis of size > 1 must map a dim (savers).
bool valid_axes(const Axes& axes, const Dim3& grid, const Shape& s, bool need_all) {
  std::array<bool, kMaxRank> used{};
  for (int a = 0; a < 3; ++a) {
    const int d = axes[a];
    if (d == kNoDim) {
      if (need_all && grid[a] > 1) return false;
      continue;
    }
    if (grid[a] == 1 || !valid_shape_dim(d, s) || used[d]) return false;
    used[d] = true;
  }
  return true;
}

}  // namespace

Verdict BlockGraph::check_launch(Dim3 g, int32_t f) {
  for (int32_t x : g)
    if (x < 1 || x > 65535) return Verdict::BadGrid;
  if (f < 1 || f > (1 << 20)) return Verdict::BadLoop;
  return Verdict::Ok;
}

Verdict BlockGraph::add_input(int32_t tensor, const Shape& src, Axes imap, int8_t fmap) {
  if (!ops.empty()) return Verdict::Order;
  if (inputs.full()) return Verdict::TooMany;
  if (!valid_axes(imap, grid, src, false)) return Verdict::BadImap;
  Tile& t = tiles.spare();  // built in place (FixedVec::spare says why)
  t.shape = src;
  t.post = false;
  for (int a = 0; a < 3; ++a) {
    if (imap[a] == kNoDim) continue;
    if (src.d[imap[a]] % grid[a] != 0) return Verdict::BadImap;
    t.shape.d[imap[a]] /= grid[a];
  }
  if (fmap != kNoDim) {
    if (loop == 1 || !valid_shape_dim(fmap, t.shape) || t.shape.d[fmap] % loop != 0) return Verdict::BadFmap;
    t.shape.d[fmap] /= loop;
  }
  BlockInput& in = inputs.spare();
  in.tensor = tensor;
  in.imap = imap;
  in.fmap = fmap;
  inputs.push_spare();
  tiles.push_spare();
  return Verdict::Ok;
}

Verdict BlockGraph::result_of(const Op& op, Tile* out) const {
  if (ops.full()) return Verdict::TooMany;
  const int n = arity(op.kind);
  std::array<Shape, 2> shapes;
  int posts = 0;
  for (int i = 0; i < n; ++i) {
    const int t = op.in[i];
    if (t < 0 || t >= tiles.size()) return Verdict::BadOperand;
    shapes[i] = tiles[t].shape;
    posts += tiles[t].post;
  }
  out->post = posts > 0;
  if (is_accumulator(op.kind)) {
    if (out->post) return Verdict::AccumOfPost;
    out->post = true;
  } else if (posts != 0 && posts != n) {
    return Verdict::MixedStage;
  }
  return infer_shape(op, Level::Block, std::span(shapes.data(), n), &out->shape);
}

Verdict BlockGraph::add_op(const Op& op) {
  if (tiles.full()) return Verdict::TooMany;
  if (Verdict v = result_of(op, &tiles.spare()); v != Verdict::Ok) return v;  // built in place
  ops.push_back(op);
  tiles.push_spare();
  return Verdict::Ok;
}

void BlockGraph::clear() {
  grid = {1, 1, 1};
  loop = 1;
  inputs.clear();
  ops.clear();
  outputs.clear();
  tiles.clear();
}

void BlockGraph::pop_op() {
  ops.pop_back();
  tiles.pop_back();
}

Verdict BlockGraph::add_output(int32_t tile, Axes omap) {
  if (outputs.full()) return Verdict::TooMany;
  if (tile < inputs.size() || tile >= tiles.size()) return Verdict::BadOperand;
  if (!tiles[tile].post) return Verdict::SaverOfPre;
  if (!valid_axes(omap, grid, tiles[tile].shape, true)) return Verdict::BadOmap;
  outputs.push_back({tile, omap});
  return Verdict::Ok;
}

int64_t BlockGraph::smem_bytes(const GraphRules& rules) const {
  int64_t n = 0;
  for (const Tile& t : tiles) n += t.shape.numel();
  return n * rules.elem_bytes;
}

Shape BlockGraph::output_shape(int i) const {
  const BlockOutput& o = outputs[i];
  Shape s = tiles[o.tile].shape;
  for (int a = 0; a < 3; ++a)
    if (o.omap[a] != kNoDim) s.d[o.omap[a]] *= grid[a];
  return s;
}

Verdict BlockGraph::check_complete(const GraphRules& rules) const {
  if (outputs.empty()) return Verdict::NoOutputs;
  std::array<bool, kMaxTiles> used{};
  for (const Op& op : ops)
    for (int i = 0; i < arity(op.kind); ++i) used[op.in[i]] = true;
  for (const BlockOutput& o : outputs) used[o.tile] = true;
  for (int t = 0; t < tiles.size(); ++t)
    if (!used[t]) return Verdict::Unused;
  if (smem_bytes(rules) > rules.smem_budget_bytes) return Verdict::SharedMemory;
  return Verdict::Ok;
}

Verdict replay_block(const BlockGraph& from, Dim3 grid, int32_t loop, std::span<const Shape> tensors,
                     BlockGraph& out) {
  if (Verdict v = BlockGraph::check_launch(grid, loop); v != Verdict::Ok) return v;
  // `from` may be `out`, which clear() empties: then from a copy (the search replays into another).
  if (&from == &out) {
    const BlockGraph copy = from;
    return replay_block(copy, grid, loop, tensors, out);
  }
  out.clear();
  out.grid = grid;
  out.loop = loop;
  for (const BlockInput& in : from.inputs) {
    if (in.tensor < 0 || in.tensor >= static_cast<int32_t>(tensors.size())) return Verdict::BadOperand;
    if (Verdict v = out.add_input(in.tensor, tensors[in.tensor], in.imap, in.fmap); v != Verdict::Ok) return v;
  }
  for (const Op& op : from.ops)
    if (Verdict v = out.add_op(op); v != Verdict::Ok) return v;
  for (const BlockOutput& o : from.outputs)
    if (Verdict v = out.add_output(o.tile, o.omap); v != Verdict::Ok) return v;
  return Verdict::Ok;
}

}  // namespace ugs
