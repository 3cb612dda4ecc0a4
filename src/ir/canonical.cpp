// Canonical order, canonicalization and structural hashing of μGraphs.
#include "ugs/ir/canonical.h"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

#include "ugs/util/hash.h"

namespace ugs {
namespace {

auto input_key(const BlockInput& in) { return std::tie(in.tensor, in.imap, in.fmap); }
auto output_key(const BlockOutput& o) { return std::tie(o.tile, o.omap); }

Op with_ordered_operands(Op op) {
  if (is_commutative(op.kind) && op.in[0] > op.in[1]) std::swap(op.in[0], op.in[1]);
  return op;
}

// Picks, among the unplaced ops whose operands are all mapped, the one of least rank. `candidate(k,
// &rank)` returns false while op k is not ready. Returns -1 when nothing is ready.
template <class Candidate>
int least_ready(int n, const std::array<bool, 32>& placed, Candidate candidate, OpRank* best_rank) {
  int best = -1;
  for (int k = 0; k < n; ++k) {
    OpRank r;
    if (placed[k] || !candidate(k, &r)) continue;
    if (best < 0 || compare(r, *best_rank) < 0) {
      best = k;
      *best_rank = r;
    }
  }
  return best;
}

// Rebuilds `bg`, whose loaders read kernel tensors renamed by `tmap`, in canonical form against the
// shapes of `ng`. perm[i] is the new position of saver i.
bool canonical_block(const BlockGraph& bg, const std::array<int32_t, kMaxTensors>& tmap, const KernelGraph& ng,
                     BlockGraph* out, std::array<int, kMaxBlockOutputs>* perm) {
  BlockGraph b;
  b.grid = bg.grid;
  b.loop = bg.loop;
  std::array<int32_t, kMaxTiles> tile_map;
  tile_map.fill(-1);

  std::array<BlockInput, kMaxBlockInputs> ins;
  std::array<int, kMaxBlockInputs> order;
  const int ni = bg.inputs.size();
  for (int i = 0; i < ni; ++i) {
    ins[i] = bg.inputs[i];
    ins[i].tensor = tmap[ins[i].tensor];
  }
  std::iota(order.begin(), order.begin() + ni, 0);
  std::stable_sort(order.begin(), order.begin() + ni,
                   [&](int a, int c) { return input_key(ins[a]) < input_key(ins[c]); });
  for (int j = 0; j < ni; ++j) {
    const BlockInput& in = ins[order[j]];
    if (b.add_input(in.tensor, ng.shape(in.tensor), in.imap, in.fmap) != Verdict::Ok) return false;
    tile_map[order[j]] = j;
  }

  std::array<bool, 32> placed{};
  auto mapped = [&](int k, Op* op) {
    *op = bg.ops[k];
    for (int i = 0; i < arity(op->kind); ++i) {
      op->in[i] = tile_map[op->in[i]];
      if (op->in[i] < 0) return false;
    }
    *op = with_ordered_operands(*op);
    return true;
  };
  for (int step = 0; step < bg.ops.size(); ++step) {
    OpRank r;
    Op op;
    int k = least_ready(bg.ops.size(), placed, [&](int c, OpRank* rank) {
      if (!mapped(c, &op)) return false;
      *rank = rank_of(op);
      return true;
    }, &r);
    if (k < 0) return false;
    mapped(k, &op);
    if (b.add_op(op) != Verdict::Ok) return false;
    placed[k] = true;
    tile_map[ni + k] = b.tiles.size() - 1;
  }

  struct Saver {
    BlockOutput out;
    int old_index;
  };
  FixedVec<Saver, kMaxBlockOutputs> savers;
  for (int i = 0; i < bg.outputs.size(); ++i)
    savers.push_back({{tile_map[bg.outputs[i].tile], bg.outputs[i].omap}, i});
  std::stable_sort(savers.begin(), savers.end(),
                   [](const Saver& a, const Saver& c) { return output_key(a.out) < output_key(c.out); });
  for (int j = 0; j < savers.size(); ++j) {
    if (b.add_output(savers[j].out.tile, savers[j].out.omap) != Verdict::Ok) return false;
    (*perm)[savers[j].old_index] = j;
  }
  *out = b;
  return is_canonical(b);  // false only when two ops tie (duplicates)
}

// A block op's rank but its key (0): what compares before the key.
OpRank unkeyed_block_rank(const BlockGraph& bg) {
  OpRank r;
  for (const BlockInput& in : bg.inputs) r.in.push_back(in.tensor);
  r.kind = OpKind::Block;
  return r;
}

OpRank block_rank(const BlockGraph& bg) {
  OpRank r = unkeyed_block_rank(bg);
  r.block_key = structural_hash(bg);
  return r;
}

}  // namespace

int compare(const OpRank& a, const OpRank& b) {
  const int n = std::min(a.in.size(), b.in.size());
  for (int i = 0; i < n; ++i)
    if (a.in[i] != b.in[i]) return a.in[i] < b.in[i] ? -1 : 1;
  auto ka = std::make_tuple(a.in.size(), a.kind, a.dim, a.to, a.block_key);
  auto kb = std::make_tuple(b.in.size(), b.kind, b.dim, b.to, b.block_key);
  return ka < kb ? -1 : (kb < ka ? 1 : 0);
}

OpRank rank_of(const Op& op) {
  OpRank r;
  for (int i = 0; i < arity(op.kind); ++i) r.in.push_back(op.in[i]);
  r.kind = op.kind;
  r.dim = op.dim;
  r.to = op.to;
  return r;
}

OpRank rank_of(const KernelGraph& graph, int i) {
  const KernelOp& k = graph.ops[i];
  return k.op.kind == OpKind::Block ? block_rank(graph.blocks[k.block]) : rank_of(k.op);
}

// Operands are tile indices (under kMaxTiles) stored plus one, so an absent second operand (0) ranks
// below any; a signed field is offset by its sign bit, so unsigned order is its order.
namespace {

// The rank of the op that `fits` places, whose block key (when it is a block graph's, `block`) is
// hashed when a comparison first needs it.
struct PlacedRank {
  OpRank rank;
  const BlockGraph* block = nullptr;  // not null: rank.block_key is not yet set
  const OpRank& keyed() {
    if (block) rank.block_key = structural_hash(*std::exchange(block, nullptr));
    return rank;
  }
};

// compare(rank_of(graph, k), placed), hashing a block graph only when the ranks tie before the block
// key (compared last): the generator asks this of every candidate kernel op, opening and closing,
// over every op of the window, and hashing each block graph there was a visible share of a search.
int compare_at(const KernelGraph& graph, int k, PlacedRank& placed) {
  const KernelOp& kernel_op = graph.ops[k];
  if (kernel_op.op.kind != OpKind::Block) return compare(rank_of(kernel_op.op), placed.rank);
  const BlockGraph& bg = graph.blocks[kernel_op.block];
  OpRank mine = unkeyed_block_rank(bg);
  mine.block_key = placed.rank.block_key;  // equal keys leave the other fields to decide
  const int before_key = compare(mine, placed.rank);
  if (before_key != 0 || placed.rank.kind != OpKind::Block) return before_key;
  mine.block_key = structural_hash(bg);
  return compare(mine, placed.keyed());
}

// The greedy-order condition for the op of rank r at position m, whose operands all exist once the
// first `ready` ops are placed: it ranks above each op placed in [ready, m).
bool fits(const KernelGraph& graph, PlacedRank placed, int m) {
  int ready = 0;
  for (int32_t t : placed.rank.in) ready = std::max(ready, graph.producer(t) + 1);
  for (int k = ready; k < m; ++k)
    if (compare_at(graph, k, placed) >= 0) return false;
  return true;
}

bool fits(const KernelGraph& graph, const OpRank& r, int m) { return fits(graph, PlacedRank{r}, m); }

}  // namespace

BlockAppendOrder::BlockAppendOrder(const BlockGraph& bg, int ops) : inputs_(bg.inputs.size()), ops_(ops) {
  highest_since_[ops] = 0;
  for (int k = ops - 1; k >= 0; --k) highest_since_[k] = std::max(highest_since_[k + 1], packed_rank(bg.ops[k]));
}

bool may_append(const BlockGraph& bg, const Op& op) { return BlockAppendOrder(bg).admits(op); }

bool may_append(const KernelGraph& graph, const Op& op) {
  return operands_ordered(op) && fits(graph, rank_of(op), graph.ops.size());
}

bool may_append(const KernelGraph& graph, const OpRank& r) { return fits(graph, r, graph.ops.size()); }

bool may_append_block(const KernelGraph& graph, const BlockGraph& bg) {
  return is_canonical(bg) && fits(graph, PlacedRank{unkeyed_block_rank(bg), &bg}, graph.ops.size());
}

bool is_canonical(const BlockGraph& bg) {
  for (int i = 1; i < bg.inputs.size(); ++i)
    if (!(input_key(bg.inputs[i - 1]) < input_key(bg.inputs[i]))) return false;
  for (int m = 0; m < bg.ops.size(); ++m)
    if (!BlockAppendOrder(bg, m).admits(bg.ops[m])) return false;
  for (int i = 1; i < bg.outputs.size(); ++i)
    if (!(output_key(bg.outputs[i - 1]) < output_key(bg.outputs[i]))) return false;
  return true;
}

bool is_canonical(const KernelGraph& graph) {
  for (int m = 0; m < graph.ops.size(); ++m) {
    const KernelOp& k = graph.ops[m];
    if (k.op.kind == OpKind::Block ? !is_canonical(graph.blocks[k.block]) : !operands_ordered(k.op)) return false;
    if (!fits(graph, rank_of(graph, m), m)) return false;
  }
  return true;
}

bool canonicalize(KernelGraph& graph, const GraphRules& rules) {
  KernelGraph ng;
  std::array<int32_t, kMaxTensors> tmap;
  tmap.fill(-1);
  for (int t = 0; t < graph.num_inputs; ++t) {
    ng.add_input(graph.shape(t));
    tmap[t] = t;
  }
  auto ready = [&](int k) {
    for (int32_t t : graph.operands(k))
      if (tmap[t] < 0) return false;
    return true;
  };
  // The canonical version of op k under the current renaming, with its rank.
  BlockGraph cb;
  std::array<int, kMaxBlockOutputs> perm{};
  Op op;
  auto candidate = [&](int k, OpRank* rank) {
    if (!ready(k)) return false;
    const KernelOp& ko = graph.ops[k];
    if (ko.op.kind == OpKind::Block) {
      if (!canonical_block(graph.blocks[ko.block], tmap, ng, &cb, &perm)) return false;
      *rank = block_rank(cb);
    } else {
      op = ko.op;
      for (int i = 0; i < arity(op.kind); ++i) op.in[i] = tmap[op.in[i]];
      op = with_ordered_operands(op);
      *rank = rank_of(op);
    }
    return true;
  };

  std::array<bool, 32> placed{};
  for (int step = 0; step < graph.ops.size(); ++step) {
    OpRank rank;
    const int k = least_ready(graph.ops.size(), placed, candidate, &rank);
    if (k < 0) return false;
    candidate(k, &rank);  // recompute the winner's canonical op into op / cb / perm
    const KernelOp& ko = graph.ops[k];
    const int first = ng.num_tensors();
    if (ko.op.kind == OpKind::Block) {
      if (ng.add_block(cb, rules) != Verdict::Ok) return false;
      for (int i = 0; i < ko.num_out; ++i) tmap[ko.first_out + i] = first + perm[i];
    } else {
      if (ng.add_op(op) != Verdict::Ok) return false;
      tmap[ko.first_out] = first;
    }
    placed[k] = true;
  }
  FixedVec<int32_t, kMaxOutputs> outs;
  for (int32_t t : graph.outputs) outs.push_back(tmap[t]);
  if (ng.set_outputs(outs.span()) != Verdict::Ok || !is_canonical(ng)) return false;
  graph = ng;
  return true;
}

uint64_t structural_hash(const BlockGraph& bg) {
  Hasher hasher;
  for (int32_t x : bg.grid) hasher.add(x);
  hasher.add(bg.loop).add(bg.inputs.size()).add(bg.ops.size()).add(bg.outputs.size());
  for (const BlockInput& in : bg.inputs) {
    hasher.add(in.tensor).add(in.fmap);
    for (int8_t a : in.imap) hasher.add(a);
  }
  for (const Op& op : bg.ops) {
    hasher.add(static_cast<uint64_t>(op.kind)).add(op.dim).add(op.to);
    for (int i = 0; i < arity(op.kind); ++i) hasher.add(op.in[i]);
  }
  for (const BlockOutput& o : bg.outputs) {
    hasher.add(o.tile);
    for (int8_t a : o.omap) hasher.add(a);
  }
  return hasher.value();
}

uint64_t structural_hash(const KernelGraph& graph) {
  Hasher hasher;
  hasher.add(graph.num_inputs).add(graph.ops.size()).add(graph.outputs.size());
  for (int t = 0; t < graph.num_inputs; ++t) {
    const Shape& s = graph.shape(t);
    hasher.add(s.rank);
    for (int i = 0; i < s.rank; ++i) hasher.add(s.d[i]);
  }
  for (const KernelOp& kernel_op : graph.ops) {
    if (kernel_op.op.kind == OpKind::Block) {
      hasher.add(structural_hash(graph.blocks[kernel_op.block]));
      continue;
    }
    hasher.add(static_cast<uint64_t>(kernel_op.op.kind)).add(kernel_op.op.dim).add(kernel_op.op.to);
    for (int i = 0; i < arity(kernel_op.op.kind); ++i) hasher.add(kernel_op.op.in[i]);
  }
  for (int32_t t : graph.outputs) hasher.add(t);
  return hasher.value();
}

}  // namespace ugs
