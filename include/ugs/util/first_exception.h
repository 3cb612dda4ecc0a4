#pragma once
// An exception may not leave an OpenMP region or a std::thread (either ends the process). Parallel
// work runs each body under capture(): the first exception is kept, later bodies are skipped, and the
// caller rethrows it once the threads are joined, so a failure inside a search (a device error,
// memory exhausted) reaches the command line as one message.
#include <atomic>
#include <exception>
#include <mutex>

namespace ugs {

class FirstException {
 public:
  // Runs f unless a body has failed already; keeps f's exception if it is the first.
  template <class F>
  void capture(F&& f) noexcept {
    if (failed()) return;
    try {
      f();
    } catch (...) {
      std::lock_guard lock(mu_);
      if (!first_) first_ = std::current_exception();
      failed_.store(true, std::memory_order_relaxed);
    }
  }
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // After the threads that captured are joined (or their region has ended).
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::atomic<bool> failed_{false};
  std::mutex mu_;
  std::exception_ptr first_;
};

}  // namespace ugs
