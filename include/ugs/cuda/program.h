#pragma once
// The device's view of a batch (issue 6): every kernel op of every candidate becomes a *block program*
// (a graph-defined kernel as docs/design.md §2 states it, or a predefined op split into tiles the same way) bound
// to the candidate's tensors by a *job*. One work item is one grid block of one job; the interpreter
// (cuda/agent_interpret.h) runs it in one CUDA block, on the device or, for tests, on host threads.
// Plain trivially copyable structs: built on the host, copied to the device as bytes.
#include <cstdint>

#include "ugs/field/field.h"  // FieldPair, UGS_HD
#include "ugs/ir/op.h"

namespace ugs::cuda {

inline constexpr int kAxes = 4;          // grid axes: block graphs use 3, predefined ops one per 4-D dim
inline constexpr int kMaxProgTiles = 20;  // = kMaxTiles of a block graph
inline constexpr int kMaxProgOps = 16;    // = kMaxBlockOps
inline constexpr int kMaxProgIo = 4;      // loaders or savers

UGS_HD inline uint32_t mulhi32(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((uint64_t{a} * b) >> 32);
#endif
}

// n / d for 0 <= n < 2^31 by a multiply-high: m = ceil(2^(31+l) / d) with 2^(l-1) < d <= 2^l
// (Granlund and Montgomery), so no integer division runs on the device.
struct FastDiv {
  uint32_t d = 1, mul = 0, shift = 0;

  static constexpr FastDiv of(uint32_t d) {
    FastDiv f;
    f.d = d;
    if (d <= 1) return f;
    uint32_t l = 0;
    while ((uint64_t{1} << l) < d) ++l;
    f.mul = static_cast<uint32_t>(((uint64_t{1} << (31 + l)) + d - 1) / d);
    f.shift = l - 1;
    return f;
  }
  UGS_HD uint32_t div(uint32_t n) const { return d == 1 ? n : mulhi32(n, mul) >> shift; }
  friend bool operator==(const FastDiv&, const FastDiv&) = default;
};

// A tile of a block's arena: row-major over a 4-D extent.
struct TileDesc {
  int32_t ext[4] = {1, 1, 1, 1};
  uint32_t off = 0;      // first element in the arena
  uint32_t off_alt = 0;  // odd iterations' copy of a loader tile refilled every iteration (else = off)
  uint32_t numel = 1;
  FastDiv d3, d2, d1;       // by ext[3], ext[2], ext[1]: flat index to coordinates
  int32_t rms_count = 0;    // accum_rms_lastdim: sqrt(sum / count) after the loop
  uint8_t zero_init = 0;    // an accumulator: zeroed when a block starts
  friend bool operator==(const TileDesc&, const TileDesc&) = default;
};

// A loader (device tensor to tile, each iteration) or a saver (tile to device tensor, once). The tile's
// element at 4-D coordinates c sits at base + c0·s0 + c1·s1 + c2·s2 + c3 of the tensor, where base is
// Σ_a block[a]·axis_step[a] (+ iteration·iter_step for a loader): imap/fmap and omap as offsets.
struct Io {
  int64_t axis_step[kAxes] = {0, 0, 0, 0};
  int64_t iter_step = 0;  // 0: the same tile every iteration (loaded once)
  int64_t stride[3] = {0, 0, 0};
  uint8_t tile = 0;
  uint8_t narrow = 0;  // the tensor has fewer than 2^31 elements: offsets in 32-bit arithmetic
  uint8_t pairs = 0;   // every row and origin even: the tile moves in 16-byte pairs of elements
  friend bool operator==(const Io&, const Io&) = default;
};

enum class TileOpKind : uint8_t { Map, Zip, Matmul, Fold, RmsNorm };

// One op on tiles. `fn` is the OpKind of the scalar function (Map: exp/sqrt/square/silu; Zip:
// add/mul/div; Fold: Square to sum squares, else plain). Operands in0, in1 and result out are tiles.
struct TileOp {
  TileOpKind kind = TileOpKind::Map;
  uint8_t fn = 0;
  uint8_t in0 = 0, in1 = 0, out = 0;
  uint8_t into = 0;   // add the result to what `out` holds (loop accumulators)
  uint8_t plain = 0;  // Zip: both operands have out's extent (no broadcast)
  uint8_t sync_before = 0;  // a barrier first: it reads or overwrites a tile an op since the last one touched
  uint32_t scratch = 0;     // Matmul, Fold, RmsNorm: its own reduction scratch, one element per thread
  uint32_t divisors = 0;    // RmsNorm: its rows' divisors; a Zip that prepares_divisors: in1's
  int32_t n = 0;      // Matmul: k; Fold: terms per output; RmsNorm: row length
  int32_t sa[4] = {0, 0, 0, 0};  // Zip: strides of in0 read at out's coordinates (0 broadcasts); Fold: of x
  int32_t sb[4] = {0, 0, 0, 0};  // Zip: of in1; Fold: sb[0] is the distance between terms
  friend bool operator==(const TileOp&, const TileOp&) = default;
};

struct BlockProgram {
  int32_t grid[kAxes] = {1, 1, 1, 1};
  int32_t loop = 1;
  uint8_t n_tiles = 0, n_loaders = 0, n_savers = 0, n_ops = 0;
  uint8_t n_loop_ops = 0;     // ops[0, n_loop_ops) run every iteration, the rest once after the loop
  uint32_t arena = 0;         // elements of arena a block needs: tiles, then the ops' scratch
  TileDesc tiles[kMaxProgTiles];
  Io loaders[kMaxProgIo];
  Io savers[kMaxProgIo];
  TileOp ops[kMaxProgOps];

  UGS_HD uint64_t blocks() const {
    return uint64_t(grid[0]) * uint64_t(grid[1]) * uint64_t(grid[2]) * uint64_t(grid[3]);
  }
  friend bool operator==(const BlockProgram&, const BlockProgram&) = default;
};

// A division whose divisor broadcasts (fewer elements than the result): each of the divisor's elements
// is prepared once (an inverse, some 60 products in the wide field) into the op's `divisors`, as the
// CPU evaluator prepares one divisor per row, instead of once per element of the result.
UGS_HD inline bool prepares_divisors(const BlockProgram& p, const TileOp& o) {
  return o.kind == TileOpKind::Zip && o.fn == static_cast<uint8_t>(OpKind::Div) &&
         p.tiles[o.in1].numel < p.tiles[o.out].numel;
}

// One kernel op of one candidate: a program bound to device tensors. Its work items are the launch's
// items [first_item, first_item + program.blocks()).
struct Job {
  uint64_t first_item = 0;
  uint32_t program = 0;
  uint32_t unused = 0;
  const FieldPair* src[kMaxProgIo] = {};
  FieldPair* dst[kMaxProgIo] = {};
  uint32_t slot[kMaxProgIo] = {};  // element-sum slot of each saved tensor
};

// One output of one candidate to compare with the program's: its elements split into chunks.
struct CompareItem {
  uint64_t first_chunk = 0;
  uint64_t numel = 0;
  const FieldPair* got = nullptr;
  const FieldPair* want = nullptr;
  uint64_t want_sum = 0;  // the program's element sum: the hash before its shape is mixed in
  uint32_t slot = 0;      // where the candidate's element sum is
  uint32_t graph = 0;     // the flag to clear when they differ
};

}  // namespace ugs::cuda
