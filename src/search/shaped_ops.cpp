#include "shaped_ops.h"

#include <algorithm>
#include <array>

#include "enumerate.h"
#include "ugs/util/hash.h"

namespace ugs::search_detail {
namespace {

// A block graph's tiles as the shape check sees them: the tile count and whether the op list is
// full, then per tile its rank and stage and its dims. Compared whole, so a hash collision costs a
// recomputation, never a wrong list.
struct Signature {
  static constexpr int kWordsPerTile = 1 + kMaxRank;
  uint64_t owner = 0, hash = 0;
  int n = 0;
  std::array<uint32_t, 1 + kMaxTiles * kWordsPerTile> w{};

  Signature() = default;
  Signature(uint64_t who, const BlockGraph& b) : owner(who) {
    w[n++] = static_cast<uint32_t>(b.tiles.size()) | (b.ops.full() ? 0x100u : 0u);
    for (const Tile& t : b.tiles) {
      w[n++] = static_cast<uint32_t>(t.shape.rank) | (t.post ? 0x100u : 0u);
      for (int i = 0; i < kMaxRank; ++i) w[n++] = static_cast<uint32_t>(t.shape.d[i]);
    }
    hash = hash_bytes(reinterpret_cast<const uint8_t*>(w.data()), n * sizeof(uint32_t)) ^ who;
  }
  friend bool operator==(const Signature& a, const Signature& b) {
    return a.owner == b.owner && a.n == b.n && std::equal(a.w.begin(), a.w.begin() + a.n, b.w.begin());
  }
};

// A direct-mapped table of the thread's latest signatures; their lists live in one pool, so the memo
// allocates nothing once warm (on a virtual machine a fresh page costs microseconds). When the pool
// is full, it and the table start over.
struct Memo {
  static constexpr size_t kSlots = size_t{1} << 13;
  static constexpr size_t kPoolLimit = size_t{1} << 18;  // ShapedOps entries
  struct Slot {
    Signature key;
    uint64_t generation = 0;  // the memo's generation it was filled in
    uint32_t first = 0, count = 0;
    uint64_t rejected = 0;
  };
  std::vector<Slot> slots = std::vector<Slot>(kSlots);
  std::vector<ShapedOp> pool;
  uint64_t generation = 1;
};
thread_local Memo tl_memo;

}  // namespace

ShapedOps compute_shaped_block_ops(const BlockGraph& b, const SearchConfig& cfg) {
  ShapedOps r;
  for (OpKind kind : cfg.block_ops) {
    const int n = arity(kind);
    for_each_operands(n, is_commutative(kind), b.tiles.size(), [&](int x, int y) {
      for_each_variant(kind, b.tiles[x].shape, cfg, [&](Op op) {
        op.in = {x, y};
        Tile result;
        if (b.result_of(op, &result) != Verdict::Ok || is_idle_sum(kind, b.tiles[x].shape, result.shape))
          ++r.rejected;
        else
          r.ops.push_back({op, result});
      });
    });
  }
  return r;
}

ShapedView shaped_block_ops(uint64_t owner, const BlockGraph& b, const SearchConfig& cfg) {
  Memo& m = tl_memo;
  const Signature key(owner, b);
  Memo::Slot& slot = m.slots[key.hash & (Memo::kSlots - 1)];
  if (slot.generation != m.generation || !(slot.key == key)) {
    ShapedOps fresh = compute_shaped_block_ops(b, cfg);
    if (m.pool.size() + fresh.ops.size() > Memo::kPoolLimit) {
      m.pool.clear();
      ++m.generation;
    }
    slot.key = key;
    slot.generation = m.generation;
    slot.first = static_cast<uint32_t>(m.pool.size());
    slot.count = static_cast<uint32_t>(fresh.ops.size());
    slot.rejected = fresh.rejected;
    m.pool.insert(m.pool.end(), fresh.ops.begin(), fresh.ops.end());
  }
  return {std::span(m.pool.data() + slot.first, slot.count), slot.rejected};
}

}  // namespace ugs::search_detail
