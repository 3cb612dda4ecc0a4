#pragma once
// The oracle's memo: expression id -> answer, shared by all threads. Ids are hash-consed and dense,
// so the cache is an array indexed by id, in chunks allocated on first use and never moved: a lookup
// is one atomic load, with no lock and no write, so threads reading it never contend. Internal.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "ugs/expr/expr.h"

namespace ugs::expr::detail {

class AnswerCache {
 public:
  AnswerCache() : chunks_(new std::atomic<Entry*>[kChunks]) {
    for (size_t i = 0; i < kChunks; ++i) chunks_[i].store(nullptr, std::memory_order_relaxed);
  }
  ~AnswerCache() {
    for (size_t i = 0; i < kChunks; ++i) delete[] chunks_[i].load(std::memory_order_relaxed);
  }
  AnswerCache(const AnswerCache&) = delete;
  AnswerCache& operator=(const AnswerCache&) = delete;

  std::optional<bool> find(ExprId e) const {
    const Entry* c = chunks_[e >> kBits].load(std::memory_order_acquire);
    const uint8_t v = c ? c[e & kMask].load(std::memory_order_relaxed) : kEmpty;
    if (v == kEmpty) return std::nullopt;
    return v == kYes;
  }
  // Two threads may put the same id at once; both write the same answer.
  void put(ExprId e, bool answer) { chunk(e)[e & kMask].store(answer ? kYes : kNo, std::memory_order_relaxed); }

 private:
  using Entry = std::atomic<uint8_t>;
  static constexpr uint8_t kEmpty = 0, kNo = 1, kYes = 2;
  static constexpr int kBits = 16;
  static constexpr size_t kChunks = size_t{1} << (32 - kBits);
  static constexpr uint32_t kMask = (1u << kBits) - 1;

  Entry* chunk(ExprId e) {
    std::atomic<Entry*>& slot = chunks_[e >> kBits];
    Entry* c = slot.load(std::memory_order_acquire);
    if (c) return c;
    Entry* fresh = new Entry[size_t{1} << kBits];
    for (size_t i = 0; i < (size_t{1} << kBits); ++i) fresh[i].store(kEmpty, std::memory_order_relaxed);
    if (slot.compare_exchange_strong(c, fresh, std::memory_order_acq_rel)) return fresh;
    delete[] fresh;  // another thread's chunk won; `c` holds it
    return c;
  }

  std::unique_ptr<std::atomic<Entry*>[]> chunks_;
};

}  // namespace ugs::expr::detail
