#pragma once
// A search state and the step that extends it (docs/design.md §5). A state is a plain value: the kernel graph
// so far, the block graph being built (if one is open), and the abstract expression of every tensor,
// so each step computes one new expression from its operands' and nothing is recomputed.
#include <cstdint>

#include "ugs/expr/expr.h"
#include "ugs/ir/graph.h"

namespace ugs {

inline constexpr expr::ExprId kNoQuery = ~expr::ExprId{0};

struct State {
  KernelGraph kernel;                         // the kernel graph so far
  FixedVec<expr::ExprId, kMaxTensors> kexpr;  // per kernel tensor
  bool open = false;                          // a block graph is being built
  BlockGraph block;                           // it, when open
  FixedVec<expr::ExprId, kMaxTiles> bexpr;    // per tile of `block`
};

struct Step {
  enum class Kind : uint8_t { KernelOp, OpenBlock, BlockOp, CloseBlock };
  Kind kind = Kind::KernelOp;
  Op op;                                      // KernelOp, BlockOp
  Dim3 grid{1, 1, 1};                         // OpenBlock
  int32_t loop = 1;                           // OpenBlock
  FixedVec<BlockInput, kMaxBlockInputs> inputs;  // OpenBlock
  Axes omap{kNoDim, kNoDim, kNoDim};          // CloseBlock
  expr::ExprId query = kNoQuery;              // the child's new expression, to be checked by the oracle
};

// Rejections by cause (docs/design.md §9 stats.pruned).
struct PruneCounts {
  uint64_t shape = 0, order = 0, memory = 0, expr = 0, dedup = 0;
  uint64_t reach = 0;  // dead ends: cannot complete within the config's op limits
  PruneCounts& operator+=(const PruneCounts& o) {
    shape += o.shape;
    order += o.order;
    memory += o.memory;
    expr += o.expr;
    dedup += o.dedup;
    reach += o.reach;
    return *this;
  }
};

}  // namespace ugs
