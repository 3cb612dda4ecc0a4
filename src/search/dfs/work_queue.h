#pragma once
// dfs-mpi: one rank's middle states waiting for its threads. The rank's main thread (the only one
// that talks to the other ranks) fills it and closes it when no more will come; the threads take
// states until it is closed and empty. Each take wakes the main thread, which refills it early.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "ugs/search/generator/state.h"

namespace ugs::search_detail {

class WorkQueue {
 public:
  explicit WorkQueue(int threads) : running_(threads) {}

  void push(std::vector<State>&& states) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (State& s : states) states_.push_back(std::move(s));
    }
    taker_.notify_all();
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    taker_.notify_all();
  }
  // A thread's next state; false when closed and empty (the thread then ends: counted as finished).
  bool pop(State& state) {
    std::unique_lock<std::mutex> lock(mutex_);
    taker_.wait(lock, [&] { return closed_ || !states_.empty(); });
    const bool got = !states_.empty();
    if (got) {
      state = std::move(states_.front());
      states_.pop_front();
    } else {
      --running_;
    }
    lock.unlock();
    filler_.notify_one();
    return got;
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return states_.size();
  }
  bool closed() {
    std::lock_guard<std::mutex> lock(mutex_);
    return closed_;
  }
  // Closed, and every thread has ended.
  bool finished() {
    std::lock_guard<std::mutex> lock(mutex_);
    return closed_ && running_ == 0;
  }
  // The main thread: until a thread takes a state or ends, or for at most `d`.
  void wait(std::chrono::microseconds d) {
    std::unique_lock<std::mutex> lock(mutex_);
    filler_.wait_for(lock, d);
  }

 private:
  std::mutex mutex_;
  std::condition_variable taker_, filler_;
  std::deque<State> states_;
  bool closed_ = false;
  int running_;
};

}  // namespace ugs::search_detail
