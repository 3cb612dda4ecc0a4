#pragma once
// The breadth-first frontier as a tree of steps. A state is stored as its parent plus the one step
// that made it: a 16-byte node, where a whole encoding takes about a hundred bytes or more, so a level
// costs a fraction of the memory, and expanding it costs one step taken back and one applied per state
// (Cursor, cursor.h) instead of a decode, and nothing per child but the node. The levels above the
// one being expanded stay, as the ancestors of what is left. A state with no parent in the tree (the
// root, a resumed checkpoint's carried states, those another rank sent) is a base: its encoding is kept
// whole, with its key. Internal to src/search.
#include <cstdint>
#include <span>
#include <vector>

#include "search/bfs/state_codec.h"
#include "ugs/search/generator/state.h"
#include "ugs/util/hash.h"
#include "ugs/util/huge_pages.h"

namespace ugs::search_detail {

// A state as its parent plus one step.
struct Node {
  uint32_t parent = 0;            // a NodeId of the level above, or kBase
  expr::ExprId query = kNoQuery;  // an op step's new expression
  uint64_t step = 0;              // pack_step(); a base: its index in its slab's bases
};
static_assert(sizeof(Node) == 16);
inline constexpr uint32_t kBase = ~uint32_t{0};

// A node's place in its level: its slab's index, then its offset in the slab.
using NodeId = uint32_t;

// A step a node's eight bytes cannot hold, stored whole beside the nodes: an opening (grid, loop range,
// loaders, launches) or an op inside a symbolic opening (its launches).
bool stored_whole(const Step& st);
// The index of `st` among `whole_steps`, appended (with its step_hash, `hash`, to `hashes`) unless an
// equal step is there already; `slots` indexes them by hash (1 + index, 0 free; cleared, it is rebuilt
// on the next call). An opening's hash reads all its loaders, so it is taken once per step and kept.
uint32_t store_whole(std::vector<Step>& whole_steps, std::vector<uint64_t>& hashes, std::vector<uint32_t>& slots,
                     const Step& st, uint64_t hash);

// Nodes written together (one thread's children over some batches), with what a node's eight bytes
// cannot hold: steps stored whole (stored_whole) and base states. A slab grows as it fills
// (a small level costs little), and a reused one keeps its buffers.
struct NodeSlab {
  static constexpr int kBits = 17;  // at most 2 MiB of nodes: one transparent huge page
  static constexpr size_t kNodes = size_t{1} << kBits;

  std::vector<Node, HugePageAllocator<Node>> nodes;
  std::vector<Step> whole_steps;  // each distinct one once (a batch's children repeat a few many times)
  std::vector<uint64_t> whole_hashes;  // per whole step: its step_hash
  Frontier bases;
  std::vector<uint64_t> base_keys;
  std::vector<uint32_t> whole_slots;  // while the slab fills: 1 + index of a whole step by its hash, 0 free
  // Once written to a checkpoint (a joined slab never changes but for dropping expanded nodes from its
  // end): the id it is kept under there (0: not written), and its encoding's bytes and hash.
  uint64_t saved = 0, saved_bytes = 0, saved_hash = 0;

  bool full() const { return nodes.size() == kNodes; }
  bool empty() const { return nodes.empty(); }
  size_t bytes() const {
    return nodes.capacity() * sizeof(Node) + whole_steps.capacity() * sizeof(Step) +
           whole_hashes.capacity() * sizeof(uint64_t) + bases.bytes() + base_keys.capacity() * sizeof(uint64_t) +
           whole_slots.capacity() * sizeof(uint32_t);
  }
  void clear() {
    nodes.clear();
    whole_steps.clear();
    whole_hashes.clear();
    bases.clear();
    base_keys.clear();
    whole_slots.clear();
    saved = saved_bytes = saved_hash = 0;
  }
  // Once the slab takes no more nodes: the index of its whole_steps is freed.
  void seal() { whole_slots = {}; }
  // Appends a child made by `st` from parent `parent` (the step copied here if stored whole).
  void push_child(NodeId parent, const Step& st);
  // Appends a node whose whole step (if it has one) is in `theirs`, with its hash in `their_hashes`,
  // copying the step here.
  void push_copy(Node n, std::span<const Step> theirs, std::span<const uint64_t> their_hashes);
  // Appends a base state, encoded, with its key.
  void push_base(const uint8_t* encoded, size_t bytes, uint64_t key);

 private:
  uint32_t store_whole(const Step& st, uint64_t hash);  // its index in whole_steps, added if new
};

// The first byte of a packed step: an op's kind (kKernelOp or kBlockOp added), a step stored whole,
// a closing.
namespace step_tag {
inline constexpr uint64_t kKernelOp = 0x00, kBlockOp = 0x40, kWhole = 0xFE, kClose = 0xFF;
static_assert(kNumOpKinds <= 0x40, "op kinds must fit under the block tag");
inline int8_t signed_byte(uint64_t code, int at) { return static_cast<int8_t>(static_cast<uint8_t>(code >> (8 * at))); }
}  // namespace step_tag

// The packed step of a node: an op (its kind tagged kernel or block, attributes and operands), a step
// stored whole (its index in the slab's whole_steps) or a closing (its omap and launch).
// A node's whole step is found in the whole_steps of its slab (or of the buffer that holds it).
uint64_t pack_step(const Step& st, uint32_t whole);
Step unpack_step(const Node& n, std::span<const Step> whole_steps);
// Whether a node's whole step, if it has one, is among its slab's `whole_steps` (read from a file, it
// may not be).
bool whole_step_within(const Node& n, size_t whole_steps);
// Without building a Step (a cursor's hot path): whether a node's step is an op, and which; and the
// step stored whole that a node names (null where it names none), whose query is not the node's.
inline bool is_op(const Node& n) { return (n.step & 0xFF) < step_tag::kWhole; }
inline Op op_of(const Node& n) {
  const uint64_t tag = n.step & 0xFF;
  Op op;
  op.kind = static_cast<OpKind>(tag - (tag >= step_tag::kBlockOp ? step_tag::kBlockOp : step_tag::kKernelOp));
  op.dim = step_tag::signed_byte(n.step, 1);
  op.in = {step_tag::signed_byte(n.step, 2), step_tag::signed_byte(n.step, 3)};
  op.to = static_cast<int32_t>(n.step >> 32);
  return op;
}
inline const Step* stored_step(const Node& n, std::span<const Step> whole_steps) {
  return (n.step & 0xFF) == step_tag::kWhole ? &whole_steps[n.step >> 32] : nullptr;
}
// The step's share of a child's key: its content (an opening's too, not its index); the same from the
// Step and from the node that holds it.
uint64_t step_hash(const Step& st);
uint64_t step_hash(const Node& n, std::span<const uint64_t> whole_hashes);
// A state's key (structural dedup and, with ranks, its owner): its parent's and its step's, from the
// root's. Equal states have equal keys: a graph's construction is append-only in canonical order, so
// a state and its path from the root determine each other.
inline uint64_t child_key(uint64_t parent_key, uint64_t step) { return Hasher(parent_key).add(step).value(); }

// The nodes of one depth, in slabs: all of them, expanded or not, since the expanded ones are
// ancestors of deeper levels. Expansion takes the first pending nodes, so the expanded ones come
// first; each batch's children join in the order that a search diving under a memory limit should
// take them (promise.h, docs/bfs.md).
class Level {
 public:
  size_t pending() const { return nodes_ - expanded_; }
  // Kept as slabs come and go (a slab's bytes do not change once it joins): read twice a batch, and a
  // big search's levels hold thousands of slabs.
  size_t bytes() const { return bytes_; }
  const Node& node(NodeId id) const { return slabs_[id >> NodeSlab::kBits].nodes[id & (NodeSlab::kNodes - 1)]; }
  const NodeSlab& slab_of(NodeId id) const { return slabs_[id >> NodeSlab::kBits]; }
  size_t nodes() const { return nodes_; }
  size_t slab_count() const { return slabs_.size(); }
  NodeSlab& slab(size_t i) { return slabs_[i]; }
  const NodeSlab& slab(size_t i) const { return slabs_[i]; }
  // Whether `id` names a node of the level (a parent read from a file is checked so).
  bool holds(NodeId id) const {
    const size_t s = id >> NodeSlab::kBits;
    return s < slabs_.size() && (id & (NodeSlab::kNodes - 1)) < slabs_[s].nodes.size();
  }

  // A slab joins as pending nodes, after those the level holds.
  void add(NodeSlab&& s);
  // The level as a checkpoint left it: these slabs, the last `pending` nodes not yet expanded.
  void restore(std::vector<NodeSlab>&& slabs, size_t pending);
  // The ids of the first n pending nodes, in slab order.
  void peek_front(size_t n, std::vector<NodeId>& out) const;
  // Marks the first n pending nodes expanded.
  void drop_front(size_t n) { expanded_ += std::min(n, pending()); }
  // Forgets the expanded nodes (their subtrees are done); the pending ones move to the front, so
  // their ids change (nothing deeper names them), and emptied slabs go to `spare`. A slab that loses
  // some of its nodes is no longer the one a checkpoint wrote.
  void drop_expanded(std::vector<NodeSlab>& spare);
  // The pending nodes' ids, in slab order.
  void pending_ids(std::vector<NodeId>& out) const;

 private:
  size_t slab_at(size_t position) const;  // the slab holding the node at that position in slab order

  std::vector<NodeSlab> slabs_;
  std::vector<size_t> first_;  // per slab: the nodes before it
  size_t expanded_ = 0, nodes_ = 0, bytes_ = 0;
};

}  // namespace ugs::search_detail
