#pragma once
// Canonical form: one op sequence per μGraph, so the search never builds the same graph twice and
// two searches that find the same μGraph print the same hash.
//
// The rank of an op is (its operand tensor indices, its op kind), compared lexicographically, then its
// attributes and, for a graph-defined kernel, its block graph, so distinct ops never tie (docs/design.md §2).
// The canonical sequence is the greedy one: at every step, the op of least rank among those whose
// operands exist. The generator checks it one step at a time: a new op must rank above every op
// placed since its operands all became available (`may_append`). This is Mirage's rule ("above the
// last op") relaxed for ops that consume a recent result: Mirage's rule leaves some DAGs with no
// admissible order at all (LoRA's X·W + (X·A)·B in one block graph is one), this one admits every DAG
// exactly once. Commutative operands are ordered; block inputs and savers are sorted.
#include <algorithm>
#include <array>
#include <cstdint>

#include "ugs/ir/graph.h"

namespace ugs {

struct OpRank {
  FixedVec<int32_t, kMaxBlockInputs> in;
  OpKind kind = OpKind::Add;
  int8_t dim = 0;
  int32_t to = 0;
  uint64_t block_key = 0;
};

int compare(const OpRank& a, const OpRank& b);  // <0, 0, >0, lexicographic
OpRank rank_of(const Op& op);
OpRank rank_of(const KernelGraph& graph, int op_index);
// A block op's rank as one number ordered as compare() orders rank_of(op): its inputs (a missing
// second one lowest), kind, dim, to (block ops have no block key). Inline, with operands_ordered and
// BlockAppendOrder::admits: the generator asks them of every block-op candidate.
inline uint64_t packed_rank(const Op& op) {
  static_assert(kMaxTiles < 255);
  const int n = arity(op.kind);
  const uint64_t in0 = n > 0 ? op.in[0] + 1 : 0, in1 = n > 1 ? op.in[1] + 1 : 0;
  return in0 << 56 | in1 << 48 | uint64_t{static_cast<uint8_t>(op.kind)} << 40 |
         uint64_t{static_cast<uint8_t>(op.dim ^ 0x80)} << 32 | (static_cast<uint32_t>(op.to) ^ 0x80000000u);
}
// Commutative operands in non-decreasing order.
inline bool operands_ordered(const Op& op) { return !is_commutative(op.kind) || op.in[0] <= op.in[1]; }

// The one-step canonical-order predicates the generator uses: may `op` be appended next?
bool may_append(const BlockGraph& bg, const Op& op);
// may_append for a block graph's first `ops` ops, asked of many ops: the generator asks it of every
// candidate of every state, the search's most frequent question. The largest rank placed since each
// position is kept, so a question is one comparison.
class BlockAppendOrder {
 public:
  BlockAppendOrder(const BlockGraph& bg, int ops);
  explicit BlockAppendOrder(const BlockGraph& bg) : BlockAppendOrder(bg, bg.ops.size()) {}
  bool admits(const Op& op) const;

 private:
  int inputs_, ops_;
  std::array<uint64_t, kMaxBlockOps + 1> highest_since_;  // [k]: the largest packed rank of ops [k, ops_)
};

// The op's operands all exist once the first `ready` ops are placed; it must rank above each op
// placed since (a packed rank is never 0, so an empty window admits it).
inline bool BlockAppendOrder::admits(const Op& op) const {
  int ready = 0;
  for (int i = 0; i < arity(op.kind); ++i) ready = std::max(ready, op.in[i] - inputs_ + 1);
  return operands_ordered(op) && (ready >= ops_ || packed_rank(op) > highest_since_[ready]);
}
bool may_append_block(const KernelGraph& graph, const BlockGraph& bg);
bool may_append(const KernelGraph& graph, const Op& op);
// The same for a kernel op known by its rank only, e.g. a block graph about to be opened, whose
// block_key is not known yet: pass the largest key to ask whether it can still rank high enough.
bool may_append(const KernelGraph& graph, const OpRank& r);

bool is_canonical(const BlockGraph& bg);
bool is_canonical(const KernelGraph& graph);
// Rewrites `graph` into canonical form; false (`graph` untouched) only if it holds two identical ops.
bool canonicalize(KernelGraph& graph, const GraphRules& rules);

uint64_t structural_hash(const BlockGraph& bg);
uint64_t structural_hash(const KernelGraph& graph);

}  // namespace ugs
