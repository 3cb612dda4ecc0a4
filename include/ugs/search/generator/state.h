#pragma once
// A search state and the step that extends it (docs/design.md §5). A state is a plain value: the kernel graph
// so far, the block graph being built (if one is open), and the abstract expression of every tensor,
// so each step computes one new expression from its operands' and nothing is recomputed.
#include <cstdint>

#include "ugs/expr/expr.h"
#include "ugs/ir/graph.h"

namespace ugs {

inline constexpr expr::ExprId kNoQuery = ~expr::ExprId{0};

// One choice of a block graph's numbers: its grid and loop range.
struct Launch {
  Dim3 grid{1, 1, 1};
  int32_t loop = 1;
  friend bool operator==(const Launch&, const Launch&) = default;
};
inline constexpr int kMaxLaunches = 64;

// A symbolic opening (config `symbolic`, docs/search.md "Symbolic openings"): the block graph's inputs
// and maps are fixed, its numbers are any of `launches`. Every step inside it is checked under each
// launch still alive, and keeps the launches that take it with the same expression; a closing picks one
// launch, so the kernel level stays concrete. The block graph held in the state is built for the first
// launch alive. Empty for a concrete block graph.
struct Family {
  FixedVec<Launch, kMaxLaunches> launches;
  FixedVec<uint64_t, kMaxTiles> alive;  // per tile of the block: the launches alive once it was added
  bool symbolic() const { return !launches.empty(); }
  void clear() {  // not `= Family{}`, which writes every slot
    launches.clear();
    alive.clear();
  }
  uint64_t alive_now() const { return alive.empty() ? 0 : alive[alive.size() - 1]; }
};

struct State {
  KernelGraph kernel;                         // the kernel graph so far
  FixedVec<expr::ExprId, kMaxTensors> kexpr;  // per kernel tensor
  bool open = false;                          // a block graph is being built
  BlockGraph block;                           // it, when open
  FixedVec<expr::ExprId, kMaxTiles> bexpr;    // per tile of `block`
  Family family;                              // when `block` is a symbolic opening
};

struct Step {
  enum class Kind : uint8_t { KernelOp, OpenBlock, BlockOp, CloseBlock };
  // Provided, so that `Step()` and `emplace_back()` set the members below only: the implicit one
  // makes value-initialization zero the whole step first, which GCC does with a `rep stos`, slow to
  // start, for every candidate the generator makes.
  Step() {}  // NOLINT(modernize-use-equals-default)
  Kind kind = Kind::KernelOp;
  // Symbolic openings only (the fields in this order fill what would be padding). OpenBlock: the
  // launches opened, as bits over the launch table from `launch_base` (Generator::launch_table);
  // BlockOp: the launches alive after it; CloseBlock: `launch`, the one instantiated.
  int8_t launch = -1;
  uint16_t launch_base = 0;
  Op op;                                      // KernelOp, BlockOp
  Dim3 grid{1, 1, 1};                         // OpenBlock
  int32_t loop = 1;                           // OpenBlock
  FixedVec<BlockInput, kMaxBlockInputs> inputs;  // OpenBlock
  Axes omap{kNoDim, kNoDim, kNoDim};          // CloseBlock
  expr::ExprId query = kNoQuery;              // the child's new expression, to be checked by the oracle
  uint64_t launches = 0;
};

// Rejections by cause (docs/design.md §9 stats.pruned).
struct PruneCounts {
  uint64_t shape = 0, order = 0, memory = 0, expr = 0, dedup = 0;
  uint64_t reach = 0;  // dead ends: cannot complete within the config's op limits
  uint64_t cost = 0;   // --objective best: states cut by the cost bound (cost_bound.h)
  PruneCounts& operator+=(const PruneCounts& o) {
    shape += o.shape;
    order += o.order;
    memory += o.memory;
    expr += o.expr;
    dedup += o.dedup;
    reach += o.reach;
    cost += o.cost;
    return *this;
  }
};

}  // namespace ugs
