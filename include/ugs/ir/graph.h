#pragma once
// μGraphs (docs/design.md §2): a kernel graph whose ops are predefined kernels or block graphs. Both are
// plain values of fixed capacity, so a search state copies by assignment and undoes a step with
// pop_back. Every mutation goes through a validating `add_*` that returns a Verdict, so a graph that
// exists is a graph whose shapes check (the parser and the generator share these checks).
#include <array>
#include <cstdint>

#include "ugs/ir/op.h"
#include "ugs/ir/shape.h"
#include "ugs/ir/verdict.h"
#include "ugs/util/fixed_vec.h"

namespace ugs {

inline constexpr int kMaxKernelInputs = 8;
inline constexpr int kMaxKernelOps = 16;
inline constexpr int kMaxTensors = 32;
inline constexpr int kMaxBlockGraphs = 4;
inline constexpr int kMaxBlockInputs = 4;
inline constexpr int kMaxBlockOps = 16;
inline constexpr int kMaxBlockOutputs = 4;
inline constexpr int kMaxTiles = kMaxBlockInputs + kMaxBlockOps;
inline constexpr int kMaxOutputs = 4;
inline constexpr int kNoDim = -1;  // φ in imap, fmap and omap

using Axes = std::array<int8_t, 3>;  // per grid axis (x, y, z): a data dim or kNoDim
using Dim3 = std::array<int32_t, 3>;

// Rules that are parameters rather than facts (docs/design.md §2: shared memory counted at 2 bytes/element).
struct GraphRules {
  int64_t smem_budget_bytes = 96 * 1024;
  int elem_bytes = 2;
};

struct BlockInput {
  int32_t tensor = -1;  // kernel-level tensor loaded
  Axes imap{kNoDim, kNoDim, kNoDim};
  int8_t fmap = kNoDim;
  friend bool operator==(const BlockInput&, const BlockInput&) = default;
};

struct BlockOutput {
  int32_t tile = -1;  // block-level tensor saved
  Axes omap{kNoDim, kNoDim, kNoDim};
  friend bool operator==(const BlockOutput&, const BlockOutput&) = default;
};

struct Tile {
  Shape shape;
  bool post = false;  // computed after the loop (from an accumulator)
};

// One graph-defined kernel. Block-level tensors ("tiles") are numbered: one per input (its loader),
// then one per op.
struct BlockGraph {
  Dim3 grid{1, 1, 1};
  int32_t loop = 1;
  FixedVec<BlockInput, kMaxBlockInputs> inputs;
  FixedVec<Op, kMaxBlockOps> ops;
  FixedVec<BlockOutput, kMaxBlockOutputs> outputs;
  FixedVec<Tile, kMaxTiles> tiles;

  static Verdict check_launch(Dim3 grid, int32_t loop);
  // Appends a loader of a kernel tensor of shape `src`; all inputs come before any op.
  Verdict add_input(int32_t tensor, const Shape& src, Axes imap, int8_t fmap);
  Verdict add_op(const Op& op);
  // The tile add_op would append, without appending it.
  Verdict result_of(const Op& op, Tile* out) const;
  Verdict add_output(int32_t tile, Axes omap);
  void pop_op();
  // Back to a graph with no inputs, ops or outputs; cheaper than assigning BlockGraph{} (which
  // writes every slot of every list), so a search can open and close graphs in place.
  void clear();

  int64_t smem_bytes(const GraphRules& rules) const;
  // Kernel-level shape written by output saver i.
  Shape output_shape(int i) const;
  int64_t num_blocks() const { return int64_t{grid[0]} * grid[1] * grid[2]; }
  // A finished block graph: has outputs, every tile is used, tiles fit shared memory.
  Verdict check_complete(const GraphRules& rules) const;
};

struct KernelOp {
  Op op;               // for kind Block, only `kind` is meaningful
  int8_t block = -1;   // index into KernelGraph::blocks when op.kind == Block
  int16_t first_out = -1;  // tensor index of the first output
  int8_t num_out = 1;
};

struct KernelGraph {
  FixedVec<Shape, kMaxTensors> tensors;  // inputs first, then op outputs in op order
  int num_inputs = 0;
  FixedVec<KernelOp, kMaxKernelOps> ops;
  FixedVec<BlockGraph, kMaxBlockGraphs> blocks;
  FixedVec<int32_t, kMaxOutputs> outputs;

  Verdict add_input(const Shape& s);
  Verdict add_op(const Op& op);                                  // a predefined kernel
  Verdict add_block(const BlockGraph& bg, const GraphRules& rules);  // a graph-defined kernel
  void pop_op();                                                 // undoes the last add_op/add_block
  Verdict set_outputs(std::span<const int32_t> outs);

  int num_tensors() const { return tensors.size(); }
  const Shape& shape(int t) const { return tensors[t]; }
  // Index of the kernel op producing tensor t, or -1 for an input.
  int producer(int t) const;
  // Kernel tensors read by op i (a block graph's loaders, or a predefined op's operands).
  FixedVec<int32_t, kMaxBlockInputs> operands(int i) const;
  // Tensors consumed by no op, in index order (the "open" tensors of a partial graph).
  FixedVec<int32_t, kMaxTensors> open_tensors() const;
  // Complete: outputs set, every tensor other than an output is consumed.
  Verdict check_complete() const;
};

// Shape of `op` applied to operands of the given shapes, at kernel or block level.
enum class Level : uint8_t { Kernel, Block };
Verdict infer_shape(const Op& op, Level level, std::span<const Shape> operands, Shape* out);

}  // namespace ugs
