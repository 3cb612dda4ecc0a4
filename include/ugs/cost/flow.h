#pragma once
// The dataflow of predefined ops that the baseline plans group into kernels, and what one such kernel
// moves. Every op is one node except rms_norm, which is a row reduction (the rms of each row) and then
// an element-wise division that broadcasts it: XLA cuts between the two, AStitch stitches them.
//
// A kernel made of some nodes (group_counts):
//   device memory  reads each tensor it uses but does not produce, once; writes each tensor it
//                  produces that a graph output is or a node of another kernel reads, once.
//   shared memory  a tensor produced inside that some node inside reads regionally (edges.h) is
//                  written once and read once per such reader.
//   registers      local edges: the operand's bytes (reported, not timed).
//   flops          matmul 2mnk (tensor cores); element-wise 1 per result element; reduce_sum 1 per
//                  input element; the rms reduction 2 (square, add) and its division 1 per element,
//                  so rms_norm is 3 per element as in eval/op_count.h.
//   grid           a kernel with a reduction runs one block per row of it (a row is reduced inside
//                  one block; with few rows SMs sit idle, the low parallelism AStitch points at);
//                  any other kernel fills the GPU (kFullGrid).
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "ugs/cost/cost.h"
#include "ugs/cost/edges.h"

namespace ugs {

struct FlowNode {
  Access access = Access::Elementwise;  // matmul: Tile; reductions: Reduction
  OpKind kind = OpKind::Add;            // the op it comes from
  bool rms_part = false;                // one of rms_norm's two halves
  int op = -1;                          // index of that op in the kernel graph
  std::array<int32_t, 2> in{-1, -1};    // flow tensors; in[1] is -1 when unary
  int32_t out = -1;
  std::string_view label;               // "matmul", "rms_norm.rms", "rms_norm.div", ...
};

struct Flow {
  std::vector<Shape> shapes;        // the kernel graph's tensors, then one per rms reduction
  std::vector<int32_t> producer;    // node index, or -1 for an input
  std::vector<bool> output;         // a graph output (always written to device memory)
  std::vector<FlowNode> nodes;      // in topological order
};

// Every op of `graph` must be a predefined one (a program).
Flow flow_of(const KernelGraph& graph);
// Kernel op `index` of a μGraph alone: its operands come from device memory, its result goes there.
Flow flow_of_op(const KernelGraph& graph, int index);

// One kernel made of the given nodes of `flow` (in order).
KernelCounts group_counts(const Flow& flow, std::span<const int> nodes, int elem_bytes);

}  // namespace ugs
