#pragma once
// A watchdog thread for a running search: raises the stop flag when the time limit passes, and
// redraws a progress line on stderr (states, states/s, results, elapsed) twice a second.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "ugs/search/engine.h"

namespace ugs::search_detail {

// What a breadth-first search adds to the progress line: the depth it expands and that depth's size.
struct LevelProgress {
  std::atomic<int> level{-1};
  std::atomic<uint64_t> frontier{0};
};

class Monitor {
 public:
  Monitor(std::atomic<bool>& stop, const std::deque<Worker>& workers, double time_limit_s, bool progress,
          std::string label, const LevelProgress* levels = nullptr)
      : stop_(stop), workers_(workers), limit_(time_limit_s), progress_(progress), label_(std::move(label)),
        levels_(levels), thread_([this] { loop(); }) {}
  ~Monitor() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
    if (progress_) std::fputs("\n", stderr);
  }

 private:
  void loop() {
    const auto t0 = Clock::now();
    std::unique_lock<std::mutex> lock(mutex_);
    while (!done_) {
      // The progress line's period, shortened to meet the time limit on time (and only before it: the
      // drivers take a while to wind down, and a 1 ms period then redrew the line a thousand times a second).
      double wait_s = 0.5;
      const double left = limit_ - seconds_since(t0);
      if (limit_ > 0 && left > 0) wait_s = std::clamp(left, 1e-3, wait_s);
      cv_.wait_for(lock, std::chrono::duration<double>(wait_s));
      const double elapsed_s = seconds_since(t0);
      if (limit_ > 0 && elapsed_s >= limit_) stop_.store(true);
      if (progress_ && !done_) draw(elapsed_s);
    }
  }
  void draw(double elapsed_s) const {
    uint64_t states = 0;
    for (const Worker& worker : workers_) states += worker.progress.load(std::memory_order_relaxed);
    std::string level;
    if (levels_ && levels_->level.load() >= 0)
      level = "level " + std::to_string(levels_->level.load()) + "  frontier " + std::to_string(levels_->frontier.load()) +
              "  ";
    std::fprintf(stderr, "\r[%s] %sstates %llu  %.0f states/s  elapsed %.1f s   ", label_.c_str(), level.c_str(),
                 static_cast<unsigned long long>(states), elapsed_s > 0 ? states / elapsed_s : 0.0, elapsed_s);
  }

  std::atomic<bool>& stop_;
  const std::deque<Worker>& workers_;
  double limit_;
  bool progress_;
  std::string label_;
  const LevelProgress* levels_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace ugs::search_detail
