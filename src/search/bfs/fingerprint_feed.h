#pragma once
// A thread beside a breadth-first batch's workers that fingerprints each chunk's completions through
// the run's backend as soon as the chunk is expanded, so that a device works while the host expands
// the rest of the batch, instead of one call after the whole batch is expanded, for which every
// worker would wait (on a device, a large share of a full-size search). What is handed in while a
// call runs goes into the next call, so calls grow when the device falls behind. A batch may wait
// only for what an earlier batch handed in (mark(), wait(upto)), so that its own completions are
// fingerprinted while the next batch expands. With the CPU backend on a full-size program
// (wants_batches) a call shares its candidates among the run's threads. Internal to src/search.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "ugs/eval/backend.h"

namespace ugs::search_detail {

class FingerprintFeed {
 public:
  // `threads`: the OpenMP threads a backend call may use (the run's; a new thread would take every core).
  FingerprintFeed(Backend& backend, const std::atomic<bool>* stop, int threads);
  ~FingerprintFeed();
  FingerprintFeed(const FingerprintFeed&) = delete;
  FingerprintFeed& operator=(const FingerprintFeed&) = delete;

  // From any thread: the graphs' match flags go to *match (one per graph) once they are fingerprinted.
  // Both must stay as they are until a wait() that covers this add() returns. Once the stop is
  // raised, flags may be wrong (0 for graphs the backend skipped, as in a backend call), and the
  // caller discards them.
  void add(std::span<const KernelGraph> graphs, std::vector<uint8_t>* match);

  struct Done {
    double call_s = 0;  // in backend calls since the last wait()
    uint64_t graphs = 0, calls = 0;
  };
  // The add() calls so far, for a later wait().
  uint64_t mark();
  // Returns when the graphs of the first `upto` add() calls (all, by default, once no more are being
  // added) are fingerprinted, or rethrows what a backend call threw.
  Done wait(uint64_t upto = kAll);
  static constexpr uint64_t kAll = ~uint64_t{0};

 private:
  struct Item {
    std::span<const KernelGraph> graphs;
    std::vector<uint8_t>* match;
  };
  void run();
  void fingerprint(std::vector<Item>& items);  // one backend call for all of them

  Backend& backend_;
  const std::atomic<bool>* stop_;
  const int threads_;
  std::mutex mu_;
  std::condition_variable work_, idle_;
  std::vector<Item> queue_;
  bool quit_ = false;
  uint64_t added_ = 0, finished_ = 0;  // add() calls, and those whose call has returned
  Done done_;
  std::exception_ptr error_;
  std::vector<const KernelGraph*> graphs_;  // the thread's, for its call
  Fingerprints fp_;
  std::thread thread_;  // last: it starts once the rest is made
};

}  // namespace ugs::search_detail
