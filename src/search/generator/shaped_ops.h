#pragma once
// The block ops whose shapes check out on a block graph's tiles, in the generator's order, each with
// its result tile. They depend on the tiles' shapes and stages alone (and the config's op lists), and
// a search meets the same tiles again and again: siblings share all their tiles but one, and many
// states have the same shapes with other ops, so lookups outnumber distinct tile signatures by far,
// at every program size. So a generator keeps one memo of the lists, shared by all its threads, keyed
// by the exact tiles; the generator then runs only the checks that depend on the state (dead ends,
// memory, canonical order, expression) over the list. Internal to src/search.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "ugs/ir/graph.h"
#include "ugs/search/generator/config.h"
#include "ugs/util/huge_pages.h"

namespace ugs::search_detail {

// A sum that keeps its operand's shape adds nothing: over a dim of size 1 or folding a dim to its own
// size it is the identity, and accum_sum_lastdim(_to) is then accum_sum.
inline bool is_idle_sum(OpKind k, const Shape& in, const Shape& out) {
  const bool sum = k == OpKind::ReduceSum || k == OpKind::ReduceSumTo || k == OpKind::AccumSumLastdim ||
                   k == OpKind::AccumSumLastdimTo;
  return sum && in == out;
}

// A shaped op as the generator reads it, in 16 bytes: the lists are nearly all of the memo's memory
// and of the cache misses walking it, so they keep the op and, of its result tile, only what the
// checks after the shape check read: its element count (for the shared-memory budget; saturated,
// which no budget meets) and its stage.
struct ShapedOp {
  static constexpr uint8_t kNoOperand = 0xFF;
  OpKind kind = OpKind::Add;
  int8_t dim = 0;
  std::array<uint8_t, 2> in{kNoOperand, kNoOperand};
  int32_t to = 0;
  uint32_t numel = 0;
  bool post = false;

  static ShapedOp of(const Op& op, const Tile& result);
  Op op() const {
    Op o;
    o.kind = kind;
    o.dim = dim;
    o.to = to;
    for (int i = 0; i < 2; ++i) o.in[i] = in[i] == kNoOperand ? -1 : in[i];
    return o;
  }
};
static_assert(sizeof(ShapedOp) == 16);
static_assert(kMaxTiles < ShapedOp::kNoOperand);

struct ShapedOps {
  std::vector<ShapedOp> ops;  // by last operand (the higher tile), then kind, operands, attributes
  uint64_t rejected = 0;      // the combinations the shape check refused (counted as pruned.shape)
};

// What the memo computes for b's tiles under cfg's block ops, without the memo, in its order: the
// ops whose last operand is tile 0, then those whose last operand is tile 1, and so on.
ShapedOps compute_shaped_block_ops(const BlockGraph& b, const SearchConfig& cfg);

// A block graph's shaped ops as parts, one per tile in tile order: the ops whose last operand is
// that tile. A child block graph adds one tile to its parent's, so it shares every part but its last.
// (Plain arrays, left unset past `parts`: a lookup fills them, and zeroing them cost more.)
struct ShapedView {
  int parts = 0;
  std::array<const ShapedOp*, kMaxTiles> begin;
  std::array<uint32_t, kMaxTiles> size;
  uint64_t rejected = 0;

  void set(int part, std::span<const ShapedOp> ops) {
    begin[part] = ops.data();
    size[part] = static_cast<uint32_t>(ops.size());
  }
};

// An insert-only hash table, safe for any number of threads without a lock, of one node per tile
// prefix met: the prefix's last part and a link to the node of the prefix one tile shorter. The
// lists of a search's block graphs overlap in all but their last part, so the nodes take a fraction
// of the memory whole lists would, and a block graph met for the first time mostly costs its last
// part. A node is built whole, then published into an empty slot with one compare-and-swap, and
// never changes or moves until the memo is destroyed. Past its byte budget (or half its slots) it
// stops inserting, and a part not in it comes from the calling thread's overflow cache of the parts
// it computed last: a real space meets far more prefixes than the budget holds, and without the
// cache every lookup past it computed anew the parts its prefix shares with its sibling's.
class ShapedOpsMemo {
 public:
  static constexpr size_t kSlots = size_t{1} << 22;
  static constexpr size_t kBudgetBytes = size_t{512} << 20;

  explicit ShapedOpsMemo(const SearchConfig& cfg, size_t budget_bytes = kBudgetBytes);
  ~ShapedOpsMemo();
  ShapedOpsMemo(const ShapedOpsMemo&) = delete;
  ShapedOpsMemo& operator=(const ShapedOpsMemo&) = delete;

  // Names this memo among all a process makes (never 0): caches of what its lists give key on it.
  uint64_t id() const { return id_; }

  // b's shaped ops: valid for the memo's life, or (when the memo is full) until this thread's next call.
  ShapedView lookup(const BlockGraph& b) const;

  struct Stats {
    size_t entries = 0, bytes = 0;
    size_t computed = 0;  // parts computed by lookups, published or not
  };
  Stats stats() const {
    return {entries_.load(std::memory_order_relaxed), bytes_.load(std::memory_order_relaxed),
            computed_.load(std::memory_order_relaxed)};
  }

 private:
  struct Node;
  struct Prefixes;
  // The node of the first `depth` tiles of `key`, or null; found, its parts are set in `view`.
  const Node* find(const Prefixes& key, int depth, ShapedView& view) const;
  // Publishes `fresh` (`bytes` long), or returns the node another thread published for the same
  // prefix first.
  const Node* publish(const Node* fresh, size_t bytes, const Prefixes& key) const;
  // Part depth - 1 of `key` (the ops whose last operand is its tile depth - 1) once the memo is full:
  // from the thread's overflow cache, or computed into it (or `computed`, when given, copied there).
  ShapedOps& overflow_part(const Prefixes& key, int depth, const BlockGraph& block,
                           const ShapedOps* computed = nullptr) const;
  // Part depth - 1 of `key` (whose tiles are `block`'s), from the thread's pair lists, into `part`.
  ShapedOps& compute_into(ShapedOps& part, const Prefixes& key, const BlockGraph& block, int depth) const;
  // Memory for a node, `bytes` long, from blocks that live as long as the memo: a node is never freed
  // alone, and freeing them one by one took a visible share of a small search.
  void* take(size_t bytes) const;
  static constexpr size_t kArenaBlock = size_t{2} << 20;  // a huge page

  const SearchConfig& cfg_;
  const size_t budget_;
  const uint64_t id_;  // names this memo in the threads' caches of recent nodes
  // A slot holds a node's address and, above it, the top bits of its prefix's hash: user addresses
  // take 47 bits, and a probe that passes other prefixes' slots then reads none of their nodes (each
  // a cache miss, a visible share of a search in a real space). A node whose address needs the
  // tag's bits is not published.
  static constexpr int kTagShift = 48;
  static constexpr uintptr_t kAddressMask = (uintptr_t{1} << kTagShift) - 1;
  // Read and written through std::atomic_ref: a table of std::atomic is zeroed at construction,
  // faulting in every page before the search starts, where these come zeroed as the probes first
  // touch them. On huge pages: nearly every probe is a cache miss, and on small pages a TLB miss too.
  HugeArray<uintptr_t> slots_;
  mutable std::atomic<size_t> entries_{0}, bytes_{0};
  mutable std::atomic<bool> full_{false};  // set once a part found no room: nothing is inserted after
  alignas(64) mutable std::atomic<size_t> computed_{0};  // apart: it changes while the others are read
  mutable std::mutex arena_mutex_;  // guards the three below
  mutable std::vector<HugeArray<std::byte>> arena_;
  mutable std::byte* arena_next_ = nullptr;
  mutable size_t arena_left_ = 0;
};

}  // namespace ugs::search_detail
