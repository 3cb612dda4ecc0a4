#include "search/generator/shaped_ops.h"

#include <algorithm>
#include <array>
#include <memory>
#include <new>
#include <type_traits>

#include "search/generator/enumerate.h"
#include "ugs/util/hash.h"

namespace ugs::search_detail {

// A block graph's tiles as the shape check sees them: the tile count and whether the op list is
// full, then per tile its rank and stage and its dims. Compared whole, so a hash collision costs a
// probe, never a wrong list.
struct Signature {
  static constexpr int kWordsPerTile = 1 + kMaxRank;
  uint64_t hash = 0;
  uint32_t size = 0;
  std::array<uint32_t, 1 + kMaxTiles * kWordsPerTile> words;  // the first `size` are set

  explicit Signature(const BlockGraph& block) {
    words[size++] = static_cast<uint32_t>(block.tiles.size()) | (block.ops.full() ? 0x100u : 0u);
    for (const Tile& t : block.tiles) {
      words[size++] = static_cast<uint32_t>(t.shape.rank) | (t.post ? 0x100u : 0u);
      for (int i = 0; i < t.shape.rank; ++i) words[size++] = static_cast<uint32_t>(t.shape.d[i]);
    }
    hash = hash_bytes(reinterpret_cast<const uint8_t*>(words.data()), size * sizeof(uint32_t));
  }
};

namespace {

// The list of the memo's scratch when it is full.
thread_local ShapedOps tl_overflow;

}  // namespace

// One allocation: the header, the signature's words, then the list's ops, so that a lookup touches
// the slot and one block.
struct ShapedOpsMemo::Entry {
  uint64_t hash;
  uint64_t rejected;
  uint32_t words, ops;

  const uint32_t* signature() const { return reinterpret_cast<const uint32_t*>(this + 1); }
  const ShapedOp* list() const {
    const size_t at = (sizeof(Entry) + words * sizeof(uint32_t) + alignof(ShapedOp) - 1) & ~(alignof(ShapedOp) - 1);
    return reinterpret_cast<const ShapedOp*>(reinterpret_cast<const char*>(this) + at);
  }
  bool same(const Signature& key) const {
    return hash == key.hash && words == key.size &&
           std::equal(key.words.begin(), key.words.begin() + key.size, signature());
  }
  ShapedView view() const { return {{list(), ops}, rejected}; }

  static size_t bytes(const Signature& key, const ShapedOps& shaped) {
    return sizeof(Entry) + key.size * sizeof(uint32_t) + alignof(ShapedOp) + shaped.ops.size() * sizeof(ShapedOp);
  }
  static Entry* make(const Signature& key, const ShapedOps& shaped) {
    static_assert(alignof(ShapedOp) <= alignof(Entry) && alignof(uint32_t) <= alignof(Entry));
    void* p = ::operator new(bytes(key, shaped));
    auto* entry = new (p) Entry{key.hash, shaped.rejected, key.size, static_cast<uint32_t>(shaped.ops.size())};
    std::uninitialized_copy(shaped.ops.begin(), shaped.ops.end(), const_cast<ShapedOp*>(entry->list()));
    std::copy(key.words.begin(), key.words.begin() + key.size, const_cast<uint32_t*>(entry->signature()));
    return entry;
  }
  static void destroy(const Entry* e) {
    static_assert(std::is_trivially_destructible_v<ShapedOp>);
    ::operator delete(const_cast<Entry*>(e));
  }
};

ShapedOpsMemo::ShapedOpsMemo(const SearchConfig& cfg, size_t budget_bytes)
    : cfg_(cfg), budget_(budget_bytes), slots_(std::make_unique<std::atomic<const Entry*>[]>(kSlots)) {}

ShapedOpsMemo::~ShapedOpsMemo() {
  for (size_t i = 0; i < kSlots; ++i)
    if (const Entry* e = slots_[i].load(std::memory_order_relaxed)) Entry::destroy(e);
}

ShapedView ShapedOpsMemo::lookup(const BlockGraph& block) const {
  const Signature key(block);
  const Entry* e = find(key);
  return e ? e->view() : insert(block, key);
}

// Linear probing; the table is at most half full.
const ShapedOpsMemo::Entry* ShapedOpsMemo::find(const Signature& key) const {
  for (size_t at = key.hash & (kSlots - 1);; at = (at + 1) & (kSlots - 1)) {
    const Entry* e = slots_[at].load(std::memory_order_acquire);
    if (!e || e->same(key)) return e;
  }
}

ShapedView ShapedOpsMemo::insert(const BlockGraph& block, const Signature& key) const {
  size_t at = key.hash & (kSlots - 1);
  ShapedOps fresh = compute_shaped_block_ops(block, cfg_);
  const size_t size = Entry::bytes(key, fresh);
  if (entries_.load(std::memory_order_relaxed) >= kSlots / 2 ||
      bytes_.load(std::memory_order_relaxed) + size > budget_) {
    tl_overflow = std::move(fresh);
    return {tl_overflow.ops, tl_overflow.rejected};
  }
  const Entry* mine = Entry::make(key, fresh);
  // Published into the first empty slot; a thread that published the same signature first wins.
  while (true) {
    const Entry* expected = nullptr;
    if (slots_[at].compare_exchange_strong(expected, mine, std::memory_order_acq_rel)) {
      entries_.fetch_add(1, std::memory_order_relaxed);
      bytes_.fetch_add(size, std::memory_order_relaxed);
      return mine->view();
    }
    if (expected->same(key)) {
      Entry::destroy(mine);
      return expected->view();
    }
    at = (at + 1) & (kSlots - 1);
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
  for (OpKind kind : cfg.block_ops) {
    const int n = arity(kind);
    for_each_operands(n, is_commutative(kind), block.tiles.size(), [&](int x, int y) {
      for_each_variant(kind, block.tiles[x].shape, cfg, [&](Op op) {
        op.in = {x, y};
        Tile result;
        if (block.result_of(op, &result) != Verdict::Ok || is_idle_sum(kind, block.tiles[x].shape, result.shape))
          ++shaped.rejected;
        else
          shaped.ops.push_back(ShapedOp::of(op, result));
      });
    });
  }
  return shaped;
}

}  // namespace ugs::search_detail
