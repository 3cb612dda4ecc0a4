#include "search/generator/shaped_ops.h"

#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <mutex>
#include <new>
#include <type_traits>

#include "search/generator/enumerate.h"
#include "search/generator/shaped_pairs.h"

namespace ugs::search_detail {

namespace {

// Calls f(a, b) for the operand tuples of for_each_operands(arity, commutative, k + 1, f) whose
// last operand (the higher one) is k, in that order.
template <class F>
void for_each_operands_ending_at(int arity_, bool commutative, int k, F f) {
  if (arity_ == 1) return f(k, -1);
  for (int a = 0; a < k; ++a) f(a, k);
  for (int b = commutative ? k : 0; b <= k; ++b) f(k, b);
}

// The ops of `block` whose last operand is tile k, appended to `out`: the shape check itself, which the
// pair lists (shaped_pairs.h) put together by pairs of tiles.
void compute_part(const BlockGraph& block, int k, const SearchConfig& cfg, ShapedOps& out) {
  for (OpKind kind : cfg.block_ops)
    for_each_operands_ending_at(arity(kind), is_commutative(kind), k, [&](int x, int y) {
      for_each_variant(kind, block.tiles[x].shape, cfg, [&](Op op) {
        op.in = {x, y};
        Tile result;
        if (block.result_of(op, &result) != Verdict::Ok || is_idle_sum(kind, block.tiles[x].shape, result.shape))
          ++out.rejected;
        else
          out.ops.push_back(ShapedOp::of(op, result));
      });
    });
}

// The parts computed by a lookup the memo had no room for, and a full block graph's list.
thread_local std::array<ShapedOps, kMaxTiles> tl_scratch;

// Each thread's nodes found last, by prefix hash, in front of the shared table: a slot there is a
// cache miss nearly always, while a thread's consecutive states mostly share their block graph's
// tiles. An entry names its memo by a number never reused, so a memo at a freed one's address
// never reads the freed one's nodes.
struct Recent {
  uint64_t hash = 0, memo = 0;
  const void* node = nullptr;
};
constexpr size_t kRecent = 4096;
thread_local std::array<Recent, kRecent> tl_recent;

// Each thread's prefixes found missing from a full memo, by hash: nothing is published once the
// memo is full, so a prefix missing then is missing for good, and in a real space most lookups ask
// first for prefixes deeper than any the memo took before it filled (each a probe of the table, a
// cache miss nearly always). A hash that another prefix shares only sends that prefix to the
// overflow cache, which computes the same part.
struct Absent {
  uint64_t hash = 0, memo = 0;
};
constexpr size_t kAbsent = 8192;
thread_local std::array<Absent, kAbsent> tl_absent;
std::atomic<uint64_t> g_memos{0};

// A part the thread computed once its memo was full, with its prefix's tiles, compared whole (the
// overflow cache: per depth, direct-mapped by the prefix's hash, so that the parts of one view never
// share an entry). A thread's consecutive states are mostly siblings and cousins, whose prefixes are
// a few; the cache holds the parts they share.
struct Overflow {
  uint64_t memo = 0, hash = 0;
  std::array<TileKey, kMaxTiles> tiles;  // the prefix's, as many as its depth
  ShapedOps part;
};
constexpr size_t kOverflowWays = 32;
using OverflowCache = std::array<std::array<Overflow, kOverflowWays>, kMaxTiles>;
thread_local std::unique_ptr<OverflowCache> tl_overflow;  // made when first needed: a third of a MiB

}  // namespace

// A block graph's tiles with the hash of every prefix: hash[d] covers the first d tiles.
struct ShapedOpsMemo::Prefixes {
  int size = 0;
  std::array<TileKey, kMaxTiles> tiles;
  std::array<uint64_t, kMaxTiles + 1> hash;

  explicit Prefixes(const BlockGraph& block) : size(block.tiles.size()) {
    hash[0] = 0x7368617065642d6full;
    for (int k = 0; k < size; ++k) {
      tiles[k] = key_of(block.tiles[k]);
      hash[k + 1] = extend_hash(hash[k], tiles[k]);
    }
  }
};

// One allocation: the header, then the part's ops.
struct ShapedOpsMemo::Node {
  uint64_t hash;        // of the prefix
  const Node* parent;   // the prefix one tile shorter (null for one tile)
  uint64_t rejected;    // in this part
  uint32_t depth, ops;  // the prefix's tiles; this part's ops
  TileKey tile;         // the prefix's last tile

  const ShapedOp* list() const {
    const size_t at = (sizeof(Node) + alignof(ShapedOp) - 1) & ~(alignof(ShapedOp) - 1);
    return reinterpret_cast<const ShapedOp*>(reinterpret_cast<const char*>(this) + at);
  }
  std::span<const ShapedOp> part() const { return {list(), ops}; }
  // Whether this node is the prefix of `key`'s first `d` tiles (the same last tile, and so on down);
  // if so, its chain's parts are set in `view`.
  bool is(const Prefixes& key, int d, ShapedView& view) const {
    if (hash != key.hash[d] || depth != static_cast<uint32_t>(d)) return false;
    uint64_t rejected_in_chain = 0;
    for (const Node* n = this; n != nullptr; n = n->parent) {
      if (n->tile != key.tiles[--d]) return false;
      view.set(d, n->part());
      rejected_in_chain += n->rejected;
    }
    view.rejected = rejected_in_chain;
    return true;
  }

  static size_t bytes(const ShapedOps& part) {
    return sizeof(Node) + alignof(ShapedOp) + part.ops.size() * sizeof(ShapedOp);
  }
  // In `p`, bytes(part) long and aligned for a Node.
  static Node* make(void* p, const Prefixes& key, int d, const Node* parent, const ShapedOps& part) {
    static_assert(alignof(ShapedOp) <= alignof(Node));
    auto* node = new (p) Node{key.hash[d], parent, part.rejected, static_cast<uint32_t>(d),
                              static_cast<uint32_t>(part.ops.size()), key.tiles[d - 1]};
    std::uninitialized_copy(part.ops.begin(), part.ops.end(), const_cast<ShapedOp*>(node->list()));
    return node;
  }
  static_assert(std::is_trivially_destructible_v<ShapedOp>);  // the arena frees nodes without a call
};

ShapedOpsMemo::ShapedOpsMemo(const SearchConfig& cfg, size_t budget_bytes)
    : cfg_(cfg), budget_(budget_bytes), id_(g_memos.fetch_add(1, std::memory_order_relaxed) + 1),
      slots_(kSlots) {}

ShapedOpsMemo::~ShapedOpsMemo() = default;

// Only a part computed and published takes memory, and computing it costs far more than the lock.
void* ShapedOpsMemo::take(size_t bytes) const {
  static_assert(alignof(Node) <= alignof(std::max_align_t));
  bytes = (bytes + alignof(Node) - 1) & ~(alignof(Node) - 1);
  const std::lock_guard lock(arena_mutex_);
  if (bytes > arena_left_) {
    const size_t block = std::max(kArenaBlock, bytes);
    arena_.emplace_back(block, /*populate=*/true);
    arena_next_ = arena_.back().data();
    arena_left_ = block;
  }
  void* p = arena_next_;
  arena_next_ += bytes;
  arena_left_ -= bytes;
  return p;
}

// The deepest prefix in the memo gives the first parts; each missing part after it is computed once,
// and published while the memo has room (a part is published only after its parent, so a published
// node's chain is whole). Once a part finds no room, nothing more is published, and the missing parts
// come from the thread's overflow cache.
ShapedView ShapedOpsMemo::lookup(const BlockGraph& block) const {
  ShapedView view;
  if (block.ops.full()) {  // the shape check refuses every op: one part, empty, counting them
    ShapedOps& all = tl_scratch[0];
    all = compute_shaped_block_ops(block, cfg_);
    view.parts = 1;
    view.set(0, all.ops);
    view.rejected = all.rejected;
    return view;
  }
  const Prefixes key(block);
  int have = key.size;
  const Node* node = nullptr;
  while (have > 0 && (node = find(key, have, view)) == nullptr) --have;
  view.parts = key.size;
  for (int d = have + 1; d <= key.size; ++d) {
    const ShapedOps* part = nullptr;
    if (!full_.load(std::memory_order_relaxed)) {
      part = &compute_into(tl_scratch[d - 1], key, block, d);
      const size_t size = Node::bytes(*part);
      void* memory = entries_.load(std::memory_order_relaxed) < kSlots / 2 &&
                             bytes_.load(std::memory_order_relaxed) + size <= budget_
                         ? take(size)
                         : nullptr;
      if (memory && reinterpret_cast<uintptr_t>(memory) >> kTagShift == 0) {  // else it has no room for a tag
        node = publish(Node::make(memory, key, d, node, *part), size, key);
        view.set(d - 1, node->part());
        view.rejected += part->rejected;
        continue;
      }
      full_.store(true, std::memory_order_relaxed);
    }
    part = &overflow_part(key, d, block, part);  // the part computed here, if any, is cached
    view.set(d - 1, part->ops);
    view.rejected += part->rejected;
  }
  return view;
}

ShapedOps& ShapedOpsMemo::compute_into(ShapedOps& part, const Prefixes& key, const BlockGraph& block,
                                       int depth) const {
  part.ops.clear();
  part.rejected = 0;
  ShapedPairs& pairs = ShapedPairs::of(id_, cfg_);
  std::array<uint32_t, kMaxTiles> classes;
  for (int k = 0; k < depth; ++k) classes[k] = pairs.class_of(key.tiles[k], block.tiles[k]);
  pairs.append_part(std::span(classes.data(), depth), part);
  computed_.fetch_add(1, std::memory_order_relaxed);
  return part;
}

ShapedOps& ShapedOpsMemo::overflow_part(const Prefixes& key, int depth, const BlockGraph& block,
                                        const ShapedOps* computed) const {
  if (!tl_overflow) tl_overflow = std::make_unique<OverflowCache>();
  Overflow& entry = (*tl_overflow)[depth - 1][key.hash[depth] & (kOverflowWays - 1)];
  if (entry.memo == id_ && entry.hash == key.hash[depth] &&
      std::equal(key.tiles.begin(), key.tiles.begin() + depth, entry.tiles.begin()))
    return entry.part;
  entry.memo = id_;
  entry.hash = key.hash[depth];
  std::copy(key.tiles.begin(), key.tiles.begin() + depth, entry.tiles.begin());
  if (!computed) return compute_into(entry.part, key, block, depth);
  entry.part = *computed;
  return entry.part;
}

// The thread's recent nodes first, then the table: linear probing, the table at most half full.
const ShapedOpsMemo::Node* ShapedOpsMemo::find(const Prefixes& key, int depth, ShapedView& view) const {
  const uint64_t hash = key.hash[depth];
  Recent& recent = tl_recent[hash & (kRecent - 1)];
  if (recent.hash == hash && recent.memo == id_ && static_cast<const Node*>(recent.node)->is(key, depth, view))
    return static_cast<const Node*>(recent.node);
  const bool full = full_.load(std::memory_order_relaxed);
  Absent& absent = tl_absent[hash & (kAbsent - 1)];
  if (full && absent.hash == hash && absent.memo == id_) return nullptr;
  for (size_t at = hash & (kSlots - 1);; at = (at + 1) & (kSlots - 1)) {
    const uintptr_t slot = std::atomic_ref(slots_[at]).load(std::memory_order_acquire);
    if (slot == 0) {
      if (full) absent = {hash, id_};
      return nullptr;
    }
    if (slot >> kTagShift != hash >> kTagShift) continue;
    const Node* n = reinterpret_cast<const Node*>(slot & kAddressMask);
    if (n->is(key, depth, view)) {
      recent = {hash, id_, n};
      return n;
    }
  }
}

const ShapedOpsMemo::Node* ShapedOpsMemo::publish(const Node* fresh, size_t bytes, const Prefixes& key) const {
  const int depth = static_cast<int>(fresh->depth);
  const uint64_t hash = key.hash[depth];
  const uintptr_t mine = reinterpret_cast<uintptr_t>(fresh) | (hash >> kTagShift << kTagShift);
  for (size_t at = hash & (kSlots - 1);; at = (at + 1) & (kSlots - 1)) {
    uintptr_t expected = 0;
    if (std::atomic_ref(slots_[at]).compare_exchange_strong(expected, mine, std::memory_order_acq_rel)) {
      entries_.fetch_add(1, std::memory_order_relaxed);
      bytes_.fetch_add(bytes, std::memory_order_relaxed);
      return fresh;
    }
    const Node* other = reinterpret_cast<const Node*>(expected & kAddressMask);
    ShapedView unused;
    if (expected >> kTagShift == hash >> kTagShift && other->is(key, depth, unused))
      return other;  // another thread's, first (`fresh` stays unused)
  }
}

ShapedOp ShapedOp::of(const Op& op, const Tile& result) {
  ShapedOp shaped;
  shaped.kind = op.kind;
  shaped.dim = op.dim;
  shaped.to = op.to;
  for (int i = 0; i < 2; ++i) shaped.in[i] = op.in[i] < 0 ? kNoOperand : static_cast<uint8_t>(op.in[i]);
  shaped.numel = static_cast<uint32_t>(std::min<int64_t>(result.shape.numel(), UINT32_MAX));
  shaped.post = result.post;
  return shaped;
}

ShapedOps compute_shaped_block_ops(const BlockGraph& block, const SearchConfig& cfg) {
  ShapedOps shaped;
  for (int k = 0; k < block.tiles.size(); ++k) compute_part(block, k, cfg, shaped);
  return shaped;
}

}  // namespace ugs::search_detail
