#pragma once
// The block ops whose shapes check out on a block graph's tiles, in the generator's order, each with
// its result tile. They depend on the tiles' shapes and stages alone (and the config's op lists), and
// a search meets the same tiles again and again: siblings share all their tiles but one, and many
// states have the same shapes with other ops. So each thread remembers the lists it has made, keyed
// by the exact tile signature; the generator then runs only the checks that depend on the state
// (dead ends, memory, canonical order, expression) over the list. Internal to src/search.
#include <cstdint>
#include <span>
#include <vector>

#include "ugs/ir/graph.h"
#include "ugs/search/config.h"

namespace ugs::search_detail {

// A sum that keeps its operand's shape adds nothing: over a dim of size 1 or folding a dim to its own
// size it is the identity, and accum_sum_lastdim(_to) is then accum_sum.
inline bool is_idle_sum(OpKind k, const Shape& in, const Shape& out) {
  const bool sum = k == OpKind::ReduceSum || k == OpKind::ReduceSumTo || k == OpKind::AccumSumLastdim ||
                   k == OpKind::AccumSumLastdimTo;
  return sum && in == out;
}

struct ShapedOp {
  Op op;
  Tile result;
};

struct ShapedOps {
  std::vector<ShapedOp> ops;  // in enumeration order: kind, then operands, then attributes
  uint64_t rejected = 0;      // the combinations the shape check refused (counted as pruned.shape)
};

// The list for b's tiles under cfg's block ops, from the thread's memo; `owner` names the config's
// user (a generator), so two searches in one thread never share lists. Valid until the next call.
struct ShapedView {
  std::span<const ShapedOp> ops;
  uint64_t rejected = 0;
};
ShapedView shaped_block_ops(uint64_t owner, const BlockGraph& b, const SearchConfig& cfg);

// What shaped_block_ops computes, without the memo.
ShapedOps compute_shaped_block_ops(const BlockGraph& b, const SearchConfig& cfg);

}  // namespace ugs::search_detail
