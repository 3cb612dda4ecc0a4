#pragma once
// Faithful emulation of one block graph (docs/design.md §2, "Block-graph semantics, precisely"): every block
// of the grid, every loop iteration, tiles loaded at the origins imap and fmap give, accumulators
// folded across iterations, savers writing tiles at the origins omap gives. Blocks run in parallel;
// each thread owns its scratch tiles.
#include <omp.h>

#include <algorithm>
#include <array>
#include <span>
#include <vector>

#include "tensor_ops.h"
#include "ugs/ir/graph.h"

namespace ugs::eval {

// Copies the box of extent `ext` at `src_origin` in src to `dst_origin` in dst.
template <class V>
void copy_box(const Tensor<V>& src, const Index4& src_origin, Tensor<V>& dst, const Index4& dst_origin,
              const Shape& ext) {
  const Index4 ss = strides4(src.shape), sd = strides4(dst.shape);
  const int64_t n = ext.dim4(3);
  for (int64_t i0 = 0; i0 < ext.dim4(0); ++i0)
    for (int64_t i1 = 0; i1 < ext.dim4(1); ++i1)
      for (int64_t i2 = 0; i2 < ext.dim4(2); ++i2) {
        const V* s = src.data.data() + (src_origin[0] + i0) * ss[0] + (src_origin[1] + i1) * ss[1] +
                     (src_origin[2] + i2) * ss[2] + src_origin[3];
        V* d = dst.data.data() + (dst_origin[0] + i0) * sd[0] + (dst_origin[1] + i1) * sd[1] +
               (dst_origin[2] + i2) * sd[2] + dst_origin[3];
        std::copy(s, s + n, d);
      }
}

// Origin (4-D) of the tile that block `block` loads at iteration it from input i of shape src.
inline Index4 load_origin(const BlockGraph& bg, int i, const Shape& src, const Dim3& block, int64_t it) {
  const BlockInput& in = bg.inputs[i];
  const Shape& tile = bg.tiles[i].shape;
  Index4 origin{0, 0, 0, 0};
  for (int a = 0; a < 3; ++a)
    if (in.imap[a] != kNoDim) origin[src.to4(in.imap[a])] += int64_t{block[a]} * (src.d[in.imap[a]] / bg.grid[a]);
  if (in.fmap != kNoDim) origin[src.to4(in.fmap)] += it * tile.d[in.fmap];
  return origin;
}

inline Index4 save_origin(const BlockGraph& bg, int output, const Dim3& block) {
  const BlockOutput& out = bg.outputs[output];
  const Shape& u = bg.tiles[out.tile].shape;
  Index4 origin{0, 0, 0, 0};
  for (int a = 0; a < 3; ++a)
    if (out.omap[a] != kNoDim) origin[u.to4(out.omap[a])] = int64_t{block[a]} * u.d[out.omap[a]];
  return origin;
}

enum class Stage : uint8_t { Loop, Accum, After };

inline Stage stage_of(const BlockGraph& bg, int k) {
  if (is_accumulator(bg.ops[k].kind)) return Stage::Accum;
  return bg.tiles[bg.inputs.size() + k].post ? Stage::After : Stage::Loop;
}

template <class A>
void apply_tile(const A& ar, const BlockGraph& bg, std::vector<Tensor<typename A::Value>>& tiles, int k,
                uint64_t& zeros) {
  const Op& op = bg.ops[k];
  Tensor<typename A::Value>& out = tiles[bg.inputs.size() + k];
  const auto* b = arity(op.kind) == 2 ? &tiles[op.in[1]] : nullptr;
  apply_rows(ar, op, tiles[op.in[0]], b, out, 0, rows_of(out.shape), zeros);
}

// Runs one block: the loop, the accumulators' final step, the ops after the loop and the savers. The
// tile of an input without fmap is the same at every iteration, and no op writes a loaded tile: it
// is loaded once.
template <class A>
void run_one_block(const A& ar, const BlockGraph& bg, std::span<const Tensor<typename A::Value>* const> in,
                   std::span<Tensor<typename A::Value>* const> out, const Dim3& block,
                   std::vector<Tensor<typename A::Value>>& tiles, uint64_t& zeros) {
  const int ni = bg.inputs.size(), nk = bg.ops.size();
  for (int k = 0; k < nk; ++k)
    if (stage_of(bg, k) == Stage::Accum) std::fill(tiles[ni + k].data.begin(), tiles[ni + k].data.end(), ar.zero());
  for (int64_t it = 0; it < bg.loop; ++it) {
    for (int i = 0; i < ni; ++i)
      if (it == 0 || bg.inputs[i].fmap != kNoDim)
        copy_box(*in[i], load_origin(bg, i, in[i]->shape, block, it), tiles[i], {}, tiles[i].shape);
    for (int k = 0; k < nk; ++k)
      if (stage_of(bg, k) != Stage::After) apply_tile(ar, bg, tiles, k, zeros);
  }
  for (int k = 0; k < nk; ++k) {
    if (bg.ops[k].kind != OpKind::AccumRmsLastdim) continue;
    const int64_t n = int64_t{bg.loop} * bg.tiles[bg.ops[k].in[0]].shape.last();
    for (auto& v : tiles[ni + k].data) v = rms_of_sum(ar, v, n, zeros);
  }
  for (int k = 0; k < nk; ++k)
    if (stage_of(bg, k) == Stage::After) apply_tile(ar, bg, tiles, k, zeros);
  for (int o = 0; o < bg.outputs.size(); ++o) {
    const auto& tile = tiles[bg.outputs[o].tile];
    copy_box(tile, {}, *out[o], save_origin(bg, o, block), tile.shape);
  }
}

// The grid axes, the one to vary fastest first. The blocks along an axis some input's imap leaves out
// load that input's same tiles, so the axis sharing the most loaded elements goes first and those
// blocks follow one another: each finds the tiles in cache. Blocks save disjoint boxes (omap maps
// every axis of size > 1): the order changes no bit.
inline std::array<int, 3> block_axis_order(const BlockGraph& bg) {
  std::array<int64_t, 3> shared{};
  for (int i = 0; i < bg.inputs.size(); ++i)
    for (int a = 0; a < 3; ++a)
      if (bg.grid[a] > 1 && bg.inputs[i].imap[a] == kNoDim) shared[a] += bg.tiles[i].shape.numel();
  std::array<int, 3> order{0, 1, 2};
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return shared[a] > shared[b]; });
  return order;
}

template <class A>
void run_block(const A& ar, const BlockGraph& bg, std::span<const Tensor<typename A::Value>* const> in,
               std::span<Tensor<typename A::Value>* const> out, uint64_t& zeros) {
  using V = typename A::Value;
  const std::array<int, 3> order = block_axis_order(bg);
  const int64_t nblocks = bg.num_blocks();
  uint64_t z = 0;
#pragma omp parallel reduction(+ : z) if (nblocks > 1)
  {
    std::vector<Tensor<V>> t(bg.tiles.size());
    for (int i = 0; i < bg.tiles.size(); ++i) t[i].reset(bg.tiles[i].shape);
#pragma omp for schedule(static)
    for (int64_t blk = 0; blk < nblocks; ++blk) {
      Dim3 b{};
      for (int64_t rest = blk; int a : order) {
        b[a] = static_cast<int32_t>(rest % bg.grid[a]);
        rest /= bg.grid[a];
      }
      run_one_block(ar, bg, in, out, b, t, z);
    }
  }
  zeros += z;
}

}  // namespace ugs::eval
