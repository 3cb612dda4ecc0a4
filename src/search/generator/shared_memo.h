#pragma once
// A map shared by the threads of a search, from a key of fixed words to an immutable value made once
// (two threads that make the same value at once keep the first). Sharded under mutexes: a lookup
// is a hash and a short lock, and values are handed out as shared pointers, read without one.
// Bounded: past `max_size` (summed over the values, in the caller's units) nothing more is kept and
// the callers make their values again. Internal to src/search.
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "ugs/util/hash.h"

namespace ugs::search_detail {

template <class Key, class Value>
class SharedMemo {
 public:
  explicit SharedMemo(uint64_t max_size) : max_size_(max_size) {}

  std::shared_ptr<const Value> find(const Key& key) const {
    const Shard& shard = shard_of(key);
    const std::lock_guard lock(shard.mutex);
    const auto it = shard.values.find(key);
    return it == shard.values.end() ? nullptr : it->second;
  }

  void add(const Key& key, std::shared_ptr<const Value> value, uint64_t size) {
    if (size_.fetch_add(size, std::memory_order_relaxed) + size > max_size_) return;
    Shard& shard = shard_of(key);
    const std::lock_guard lock(shard.mutex);
    shard.values.emplace(key, std::move(value));
  }

 private:
  struct Hash {
    size_t operator()(const Key& key) const {
      uint64_t h = 0x6d656d6full;
      for (auto w : key.words) h = splitmix64(h ^ static_cast<uint64_t>(w));
      return static_cast<size_t>(h);
    }
  };
  static constexpr int kShards = 64;
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<Key, std::shared_ptr<const Value>, Hash> values;
  };
  Shard& shard_of(const Key& key) const { return shards_[Hash{}(key) % kShards]; }
  mutable std::array<Shard, kShards> shards_;
  const uint64_t max_size_;
  std::atomic<uint64_t> size_{0};
};

}  // namespace ugs::search_detail
