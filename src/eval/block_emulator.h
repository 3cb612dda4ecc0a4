#pragma once
// Faithful emulation of one block graph (docs/design.md §2, "Block-graph semantics, precisely"): every block
// of the grid, every loop iteration, tiles loaded at the origins imap and fmap give, accumulators
// folded across iterations, savers writing tiles at the origins omap gives. Blocks run in parallel;
// each thread owns its scratch tiles. A loaded tile read once is not copied: the ops read it in place
// in its input, through a view (its values are the same, and no op writes a loaded tile). The op tiles
// no block index reaches are computed once, before the blocks run, and read by all (shared_tiles.h).
#include <omp.h>

#include <algorithm>
#include <array>
#include <span>
#include <vector>

#include "prefetch.h"
#include "shared_tiles.h"
#include "tensor_ops.h"
#include "ugs/ir/graph.h"

namespace ugs::eval {

// The box of extent `ext` at `origin` in src.
template <class V>
TensorView<V> box_of(const Tensor<V>& src, const Index4& origin, const Shape& ext) {
  const Index4 st = strides4(src.shape);
  return {src.data.data() + origin[0] * st[0] + origin[1] * st[1] + origin[2] * st[2] + origin[3], ext, st};
}

// Copies src to the box of its extent at `dst_origin` in dst.
template <class V>
void copy_box(const TensorView<V>& src, Tensor<V>& dst, const Index4& dst_origin) {
  const Shape& ext = src.shape;
  const Index4& ss = src.strides;
  const Index4 sd = strides4(dst.shape);
  const int64_t n = ext.dim4(3);
  for (int64_t i0 = 0; i0 < ext.dim4(0); ++i0)
    for (int64_t i1 = 0; i1 < ext.dim4(1); ++i1)
      for (int64_t i2 = 0; i2 < ext.dim4(2); ++i2) {
        const V* s = src.data + i0 * ss[0] + i1 * ss[1] + i2 * ss[2];
        prefetch_span(s, static_cast<int64_t>(sizeof(V)) * kPrefetchRows * ss[2], n, sizeof(V));
        V* d = dst.data.data() + (dst_origin[0] + i0) * sd[0] + (dst_origin[1] + i1) * sd[1] +
               (dst_origin[2] + i2) * sd[2] + dst_origin[3];
        std::copy(s, s + n, d);
      }
}

// Whether two boxes of one extent hold the same values.
template <class V>
bool boxes_equal(const TensorView<V>& a, const TensorView<V>& b) {
  const Shape& ext = a.shape;
  const int64_t n = ext.dim4(3);
  for (int64_t i0 = 0; i0 < ext.dim4(0); ++i0)
    for (int64_t i1 = 0; i1 < ext.dim4(1); ++i1)
      for (int64_t i2 = 0; i2 < ext.dim4(2); ++i2) {
        const V* pa = a.data + i0 * a.strides[0] + i1 * a.strides[1] + i2 * a.strides[2];
        const V* pb = b.data + i0 * b.strides[0] + i1 * b.strides[1] + i2 * b.strides[2];
        if (!std::equal(pa, pa + n, pb)) return false;
      }
  return true;
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

// Whether loaded tile i is copied when loaded rather than read in place: when it is a matmul's left
// operand (matmul_tile reads that one dense), or read more than once: as the same tile at every
// iteration (no fmap), or as a matmul's right operand (once per kMatmulRowBlock rows of the left
// one). Its rows lie an input row apart: read in place again and again, a power-of-two stride puts
// them all in a few cache sets and every pass misses; copied, it is read from a dense tile that
// stays in cache. Read once, copying would only add a pass.
inline bool copied_when_loaded(const BlockGraph& bg, int i) {
  if (bg.inputs[i].fmap == kNoDim && bg.loop > 1) return true;
  for (const Op& op : bg.ops) {
    if (op.kind != OpKind::Matmul) continue;
    if (op.in[0] == i || (op.in[1] == i && bg.tiles[op.in[0]].shape.dim4(2) > kMatmulRowBlock)) return true;
  }
  return false;
}

// A block's tiles: the ops' own and the copied loads', and what every tile is read through (a loaded
// tile's box in its input, or its copy; an op's tile itself).
template <class V>
struct BlockTiles {
  std::vector<Tensor<V>> own;
  std::vector<TensorView<V>> read;
  std::vector<uint8_t> copied;  // per loaded tile

  // Not copied: a copy's views would read the original's tiles (a move keeps the buffers they read).
  BlockTiles(const BlockTiles&) = delete;
  BlockTiles(BlockTiles&&) noexcept = default;
  explicit BlockTiles(const BlockGraph& bg) : own(bg.tiles.size()), read(bg.tiles.size()), copied(bg.inputs.size()) {
    for (int i = 0; i < bg.inputs.size(); ++i) copied[i] = copied_when_loaded(bg, i);
    for (int t = 0; t < bg.tiles.size(); ++t) {
      if (t < bg.inputs.size() && !copied[t]) continue;  // read in place: no tile of its own
      own[t].reset(bg.tiles[t].shape);
      read[t] = own[t];
    }
  }

  void load(int i, const TensorView<V>& box) {
    if (copied[i] && !box.dense()) {
      copy_box(box, own[i], {});
    } else {
      read[i] = box;
    }
  }
};

template <class A>
void apply_tile(const A& ar, const BlockGraph& bg, BlockTiles<typename A::Value>& tiles, int k, uint64_t& zeros) {
  const Op& op = bg.ops[k];
  Tensor<typename A::Value>& out = tiles.own[bg.inputs.size() + k];
  const auto* b = arity(op.kind) == 2 ? &tiles.read[op.in[1]] : nullptr;
  apply_rows(ar, op, tiles.read[op.in[0]], b, out, 0, rows_of(out.shape), zeros);
}

// An accumulate-rms tile's sum of squares, turned into the rms at the end of the loop.
template <class A>
void finish_rms(const A& ar, const BlockGraph& bg, BlockTiles<typename A::Value>& tiles, int k, uint64_t& zeros) {
  const int64_t n = int64_t{bg.loop} * bg.tiles[bg.ops[k].in[0]].shape.last();
  for (auto& v : tiles.own[bg.inputs.size() + k].data) v = rms_of_sum(ar, v, n, zeros);
}

// The shared tiles' values (shared_tiles.h): a loop-stage tile's at every slot, an accumulator's and
// an after-loop tile's final ones.
template <class V>
struct SharedValues {
  SharedTiles which;
  std::vector<std::vector<V>> table;  // per tile, slot after slot; empty for a tile not shared

  TensorView<V> at(const BlockGraph& bg, int t, int64_t it) const {
    const Shape& shape = bg.tiles[t].shape;
    return {table[t].data() + which.slot(t, it) * shape.numel(), shape, strides4(shape)};
  }
};

// The loop of a group of blocks over one part of their ops: those computed once for all blocks
// (`shared_part`), or those every block computes. Each block's accumulators of the part zeroed; at
// each iteration, block after block: `before(b, it)`, the loads `loads` marks, the part's loop-stage
// ops and accumulators, `after(b, it)`; then each block's rms accumulators finished and its ops after
// the loop. The blocks run in lockstep over the iterations, each with its own tiles, so the group's
// tiles of an input at one iteration are read together (block_group_size says why); each block's
// ops run in the order one block alone runs them, so the bits are the same.
template <class A, class Before, class After>
void run_part(const A& ar, const BlockGraph& bg, std::span<const Tensor<typename A::Value>* const> in,
              std::span<const Dim3> blocks, const std::vector<uint8_t>& shared, bool shared_part,
              const std::vector<uint8_t>& loads, std::span<BlockTiles<typename A::Value>> tiles, uint64_t& zeros,
              Before before, After after) {
  const int ni = bg.inputs.size(), nk = bg.ops.size();
  auto mine = [&](int k) { return (shared[ni + k] != 0) == shared_part; };
  for (size_t b = 0; b < blocks.size(); ++b)
    for (int k = 0; k < nk; ++k)
      if (mine(k) && stage_of(bg, k) == Stage::Accum) std::ranges::fill(tiles[b].own[ni + k].data, ar.zero());
  for (int64_t it = 0; it < bg.loop; ++it)
    for (size_t b = 0; b < blocks.size(); ++b) {
      before(b, it);
      for (int i = 0; i < ni; ++i)
        if (loads[i] && (it == 0 || bg.inputs[i].fmap != kNoDim))
          tiles[b].load(i, box_of(*in[i], load_origin(bg, i, in[i]->shape, blocks[b], it), bg.tiles[i].shape));
      for (int k = 0; k < nk; ++k)
        if (mine(k) && stage_of(bg, k) != Stage::After) apply_tile(ar, bg, tiles[b], k, zeros);
      after(b, it);
    }
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (int k = 0; k < nk; ++k)
      if (mine(k) && bg.ops[k].kind == OpKind::AccumRmsLastdim) finish_rms(ar, bg, tiles[b], k, zeros);
    for (int k = 0; k < nk; ++k)
      if (mine(k) && stage_of(bg, k) == Stage::After) apply_tile(ar, bg, tiles[b], k, zeros);
  }
}

// Computes the shared tiles as a block would (they read no block index), with only the loads they
// read, and keeps them: a loop-stage tile at every slot, the others' final values.
template <class A>
SharedValues<typename A::Value> compute_shared(const A& ar, const BlockGraph& bg,
                                               std::span<const Tensor<typename A::Value>* const> in,
                                               uint64_t& zeros) {
  using V = typename A::Value;
  SharedValues<V> values{shared_tiles(bg), {}};
  if (!values.which.any) return values;
  const std::vector<uint8_t>& shared = values.which.shared;
  const int ni = bg.inputs.size(), nk = bg.ops.size();
  std::vector<uint8_t> feeds(ni, 0);  // per loaded tile: a shared op reads it
  for (int k = 0; k < nk; ++k)
    for (int j = 0; j < arity(bg.ops[k].kind) && shared[ni + k]; ++j)
      if (bg.ops[k].in[j] < ni) feeds[bg.ops[k].in[j]] = 1;
  values.table.resize(bg.tiles.size());
  auto in_table = [&](int k) { return shared[ni + k] && stage_of(bg, k) == Stage::Loop; };
  for (int k = 0; k < nk; ++k)
    if (shared[ni + k])
      values.table[ni + k].resize(bg.tiles[ni + k].shape.numel() *
                                  (in_table(k) && values.which.iterates[ni + k] ? bg.loop : 1));
  BlockTiles<V> tiles(bg);
  uint64_t z = 0;
  const Dim3 origin{};
  run_part(ar, bg, in, std::span(&origin, 1), shared, true, feeds, std::span(&tiles, 1), z, [](size_t, int64_t) {},
           [&](size_t, int64_t it) {
    for (int k = 0; k < nk; ++k) {
      const int t = ni + k;
      if (in_table(k) && (it == 0 || values.which.iterates[t]))
        std::ranges::copy(tiles.own[t].data, values.table[t].begin() + values.which.slot(t, it) * tiles.own[t].numel());
    }
  });
  for (int k = 0; k < nk; ++k)
    if (shared[ni + k] && !in_table(k)) values.table[ni + k] = std::move(tiles.own[ni + k].data);
  zeros += z * static_cast<uint64_t>(bg.num_blocks());
  return values;
}

// Runs a group of blocks (run_part): their part of the ops (the shared tiles read from `shared`, a
// loop-stage one at each iteration's slot), then the savers. The tile of an input without fmap is the
// same at every iteration: it is located once. A load only shared ops read is not made.
template <class A>
void run_blocks(const A& ar, const BlockGraph& bg, std::span<const Tensor<typename A::Value>* const> in,
                std::span<Tensor<typename A::Value>* const> out, std::span<const Dim3> blocks,
                const SharedValues<typename A::Value>& shared, std::span<BlockTiles<typename A::Value>> tiles,
                uint64_t& zeros) {
  const SharedTiles& which = shared.which;
  auto read_loop_tiles = [&](size_t b, int64_t it) {
    if (!which.any) return;
    for (int k = 0; k < bg.ops.size(); ++k) {
      const int t = bg.inputs.size() + k;
      if (which.shared[t] && stage_of(bg, k) == Stage::Loop) tiles[b].read[t] = shared.at(bg, t, it);
    }
  };
  run_part(ar, bg, in, blocks, which.shared, false, which.per_block, tiles, zeros, read_loop_tiles,
           [](size_t, int64_t) {});
  for (size_t b = 0; b < blocks.size(); ++b)
    for (int o = 0; o < bg.outputs.size(); ++o)
      copy_box(tiles[b].read[bg.outputs[o].tile], *out[o], save_origin(bg, o, blocks[b]));
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

// Each thread's tiles read the shared tiles that hold one value per block from `shared`.
template <class V>
void read_shared(const BlockGraph& bg, const SharedValues<V>& shared, BlockTiles<V>& tiles) {
  for (int k = 0; k < bg.ops.size(); ++k) {
    const int t = bg.inputs.size() + k;
    if (shared.which.shared[t] && stage_of(bg, k) != Stage::Loop) tiles.read[t] = shared.at(bg, t, 0);
  }
}

// How many blocks run_block runs in lockstep (run_part), consecutive along the grid's fastest axis
// (block_axis_order). A tile loaded in place from an input whose rows lie a page or more apart is a
// box of short rows, each a page from the last: a full-size weight split over hundreds of blocks
// gives 8 columns, one cache line a row, and a block alone then streams it several times slower
// than a wide tile. Where the fastest axis splits that input's last dim, the next blocks load the
// lines next to its own: in lockstep the group reads each row's lines together. Enough blocks to
// read 512 bytes a row, at most 16, and each of `threads` left four groups or more.
template <class V>
int64_t block_group_size(const BlockGraph& bg, std::span<const Tensor<V>* const> in, int axis, int threads) {
  constexpr int64_t kValue = sizeof(V), kRowBytes = 512, kPage = 4096;
  int64_t group = 1;
  for (int i = 0; i < bg.inputs.size(); ++i) {
    const Shape& src = in[i]->shape;
    if (bg.inputs[i].imap[axis] != src.rank - 1 || src.last() * kValue < kPage) continue;
    group = std::max(group, kRowBytes / (bg.tiles[i].shape.last() * kValue));
  }
  return std::max<int64_t>(1, std::min<int64_t>({group, 16, bg.grid[axis], bg.num_blocks() / (4 * threads)}));
}

template <class A>
void run_block(const A& ar, const BlockGraph& bg, std::span<const Tensor<typename A::Value>* const> in,
               std::span<Tensor<typename A::Value>* const> out, uint64_t& zeros) {
  using V = typename A::Value;
  const std::array<int, 3> order = block_axis_order(bg);
  const int64_t nblocks = bg.num_blocks();
  const int threads = nblocks > 1 && !omp_in_parallel() ? omp_get_max_threads() : 1;
  const int64_t group = block_group_size(bg, in, order[0], threads);
  const int64_t groups = (nblocks + group - 1) / group;
  const SharedValues<V> shared = compute_shared(ar, bg, in, zeros);
  uint64_t z = 0;
#pragma omp parallel reduction(+ : z) if (nblocks > 1)
  {
    std::vector<BlockTiles<V>> tiles;
    tiles.reserve(group);
    for (int64_t b = 0; b < group; ++b) read_shared(bg, shared, tiles.emplace_back(bg));
    std::vector<Dim3> blocks;
#pragma omp for schedule(static)
    for (int64_t first = 0; first < groups; ++first) {
      blocks.clear();
      for (int64_t blk = first * group; blk < std::min(nblocks, (first + 1) * group); ++blk) {
        Dim3& b = blocks.emplace_back();
        for (int64_t rest = blk; int a : order) {
          b[a] = static_cast<int32_t>(rest % bg.grid[a]);
          rest /= bg.grid[a];
        }
      }
      run_blocks(ar, bg, in, out, std::span<const Dim3>(blocks), shared,
                 std::span(tiles.data(), blocks.size()), z);
    }
  }
  zeros += z;
}

// Only the blocks `blocks` of the grid, on this thread: each saves what run_block saves there, and
// the rest of `out` is left as it was.
template <class A>
void run_some_blocks(const A& ar, const BlockGraph& bg, std::span<const Tensor<typename A::Value>* const> in,
                     std::span<Tensor<typename A::Value>* const> out, std::span<const Dim3> blocks,
                     uint64_t& zeros) {
  const SharedValues<typename A::Value> shared = compute_shared(ar, bg, in, zeros);
  BlockTiles<typename A::Value> tiles(bg);
  read_shared(bg, shared, tiles);
  for (const Dim3& b : blocks) run_blocks(ar, bg, in, out, std::span(&b, 1), shared, std::span(&tiles, 1), zeros);
}

}  // namespace ugs::eval
