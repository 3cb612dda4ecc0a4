#pragma once
// One shard of the expression pool's tables (src/expr/pool.cpp): the intern heads and the memo of op
// applications, behind one lock. Shards are picked by hash, so threads interning different terms
// rarely meet on a lock.
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "ugs/expr/expr.h"

namespace ugs::expr::detail {

struct MemoKey {
  uint64_t hash;
  uint32_t op;
  ExprId a, b;
  Size k;
  friend bool operator==(const MemoKey&, const MemoKey&) = default;
};

struct MemoKeyHash {
  size_t operator()(const MemoKey& k) const { return static_cast<size_t>(k.hash); }
};

struct PoolShard {
  std::mutex mu;
  std::unordered_map<uint64_t, ExprId> heads;  // node hash -> first node of its chain
  std::unordered_map<MemoKey, ExprId, MemoKeyHash> memo;
};

inline constexpr int kPoolShardBits = 6;

inline uint64_t mix64(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 32);
}

}  // namespace ugs::expr::detail
