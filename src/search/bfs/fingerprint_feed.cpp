// The thread that fingerprints a batch's chunks while the batch expands (fingerprint_feed.h).
#include "search/bfs/fingerprint_feed.h"

#include <omp.h>

#include <algorithm>
#include <utility>

#include "ugs/search/engine.h"

namespace ugs::search_detail {

FingerprintFeed::FingerprintFeed(Backend& backend, const std::atomic<bool>* stop, int threads)
    : backend_(backend), stop_(stop), threads_(threads), thread_([this] { run(); }) {}

FingerprintFeed::~FingerprintFeed() {
  {
    std::lock_guard lock(mu_);
    quit_ = true;
  }
  work_.notify_one();
  thread_.join();
}

void FingerprintFeed::add(std::span<const KernelGraph> graphs, std::vector<uint8_t>* match) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back({graphs, match});
    ++added_;
  }
  work_.notify_one();
}

uint64_t FingerprintFeed::mark() {
  std::lock_guard lock(mu_);
  return added_;
}

FingerprintFeed::Done FingerprintFeed::wait(uint64_t upto) {
  std::unique_lock lock(mu_);
  idle_.wait(lock, [&] { return finished_ >= std::min(upto, added_); });
  const Done done = std::exchange(done_, Done{});
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  return done;
}

// Takes whatever is queued, fingerprints it in one call outside the lock, and tells wait() what is
// finished. After a failed call the rest is not fingerprinted: wait() rethrows.
void FingerprintFeed::run() {
  omp_set_num_threads(threads_);
  std::vector<Item> items;
  std::unique_lock lock(mu_);
  while (true) {
    work_.wait(lock, [&] { return quit_ || !queue_.empty(); });
    if (queue_.empty()) return;  // quit, with nothing left
    items.swap(queue_);
    const bool failed = error_ != nullptr;
    lock.unlock();
    const auto t0 = Clock::now();
    std::exception_ptr error;
    if (!failed) try {
        fingerprint(items);
      } catch (...) {
        error = std::current_exception();
      }
    const double s = seconds_since(t0);
    lock.lock();
    if (error && !error_) error_ = error;
    done_.call_s += s;
    ++done_.calls;
    for (const Item& it : items) done_.graphs += it.graphs.size();
    finished_ += items.size();
    items.clear();
    idle_.notify_all();
  }
}

void FingerprintFeed::fingerprint(std::vector<Item>& items) {
  graphs_.clear();
  for (const Item& it : items)
    for (const KernelGraph& g : it.graphs) graphs_.push_back(&g);
  fp_.match_only = true;  // the flags are all the feed hands back
  backend_.fingerprint(graphs_, fp_, stop_);
  auto from = fp_.match.begin();  // sized for graphs_ by every backend, stopped or not
  for (const Item& it : items) {
    const auto to = from + static_cast<std::ptrdiff_t>(it.graphs.size());
    it.match->assign(from, to);
    from = to;
  }
}

}  // namespace ugs::search_detail
