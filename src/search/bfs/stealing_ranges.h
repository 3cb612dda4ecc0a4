#pragma once
// Items [0, n) cut into one contiguous range per thread: a thread takes its own range's items from the
// front and, when it runs out, steals from the back of the others'. The locality of a static split (a
// bfs thread's cursor walks neighbouring states, its caches see cousins) with the balance of a dynamic
// one (a few heavy states, with completions to verify, no longer hold the others up). A range is one
// 64-bit word, front and back, changed by compare-and-swap. Internal to src/search.
#include <atomic>
#include <cstdint>
#include <memory>

namespace ugs::search_detail {

class StealingRanges {
 public:
  // Before the threads start (not thread-safe).
  void reset(size_t n, int threads) {
    if (threads_ != threads) ranges_ = std::make_unique<Range[]>(threads);
    threads_ = threads;
    for (int t = 0; t < threads; ++t)
      ranges_[t].span.store(pack(n * t / threads, n * (t + 1) / threads), std::memory_order_relaxed);
  }
  // Thread t's next item, or false when every range is empty.
  bool next(int t, size_t& item) {
    if (take(ranges_[t], true, item)) return true;
    for (int k = 1; k < threads_; ++k)
      if (take(ranges_[(t + k) % threads_], false, item)) return true;
    return false;
  }

 private:
  struct alignas(64) Range {
    std::atomic<uint64_t> span{0};  // front in the high half, back (one past) in the low
  };
  static uint64_t pack(uint64_t front, uint64_t back) { return front << 32 | back; }
  static bool take(Range& r, bool from_front, size_t& item) {
    uint64_t v = r.span.load(std::memory_order_relaxed);
    while (true) {
      const uint64_t front = v >> 32, back = v & 0xFFFFFFFFu;
      if (front >= back) return false;
      const uint64_t next = from_front ? pack(front + 1, back) : pack(front, back - 1);
      if (r.span.compare_exchange_weak(v, next, std::memory_order_relaxed)) {
        item = from_front ? front : back - 1;
        return true;
      }
    }
  }

  std::unique_ptr<Range[]> ranges_;
  int threads_ = 0;
};

}  // namespace ugs::search_detail
