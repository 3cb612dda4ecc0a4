#pragma once
// The breadth-first engine's threads in parallel regions. Each region is named by the entry of
// IdleTimes its threads' waiting counts in: a thread waits from the region's start until it enters the
// body and from its last item to the region's end, and its time in the body counts as its worker's
// busy time. The serial glue between regions is the rest of the run's wall (Bfs::run).
#include <omp.h>

#include <deque>
#include <vector>

#include "search/bfs/stealing_ranges.h"
#include "ugs/search/engine.h"
#include "ugs/search/search.h"
#include "ugs/util/first_exception.h"

namespace ugs::search_detail {

class Team {
 public:
  // A region's entry in IdleTimes; null: a region whose time counts nowhere (a checkpoint's).
  using Region = double IdleTimes::*;

  Team(std::deque<Worker>& workers, IdleTimes& idle)
      : workers_(workers), idle_(idle), threads_(static_cast<int>(workers.size())), busy_(workers.size()) {}
  int size() const { return threads_; }
  // The wall time of the regions so far.
  double regions_s() const { return regions_s_; }

  // body(i, thread) for i in [0, n). Static: interleaved runs of 16, the same split every run (for
  // work whose order matters); dynamic: one at a time, to whichever thread is free.
  template <class F>
  void each(Region where, size_t n, F body, bool dynamic = false);
  // body(chunk, thread) over chunks [0, chunks): each thread takes its own contiguous range first and
  // then steals from the back of the others' (stealing_ranges.h).
  template <class F>
  void each_chunk(Region where, size_t chunks, F body);
  // body(thread) once on each thread.
  template <class F>
  void each_thread(Region where, F body);

 private:
  void begin();
  void busy_since(Region where, int thread, Clock::time_point start);
  void end(Region where);

  std::deque<Worker>& workers_;
  IdleTimes& idle_;
  const int threads_;
  StealingRanges ranges_;
  Clock::time_point start_;
  std::vector<double> busy_;  // per thread: its time in the region's body
  double regions_s_ = 0;
};

template <class F>
void Team::each(Region where, size_t n, F body, bool dynamic) {
  FirstException failure;
  begin();
#pragma omp parallel num_threads(threads_)
  {
    const int thread = omp_get_thread_num();
    const auto start = Clock::now();
    if (dynamic) {
#pragma omp for schedule(dynamic, 1) nowait
      for (size_t i = 0; i < n; ++i) failure.capture([&] { body(i, thread); });
    } else {
#pragma omp for schedule(static, 16) nowait
      for (size_t i = 0; i < n; ++i) failure.capture([&] { body(i, thread); });
    }
    busy_since(where, thread, start);
  }
  end(where);
  failure.rethrow();
}

template <class F>
void Team::each_thread(Region where, F body) {
  FirstException failure;
  begin();
#pragma omp parallel num_threads(threads_)
  {
    const int thread = omp_get_thread_num();
    const auto start = Clock::now();
    failure.capture([&] { body(thread); });
    busy_since(where, thread, start);
  }
  end(where);
  failure.rethrow();
}

template <class F>
void Team::each_chunk(Region where, size_t chunks, F body) {
  ranges_.reset(chunks, threads_);
  FirstException failure;
  begin();
#pragma omp parallel num_threads(threads_)
  {
    const int thread = omp_get_thread_num();
    const auto start = Clock::now();
    for (size_t c; !failure.failed() && ranges_.next(thread, c);) failure.capture([&] { body(c, thread); });
    busy_since(where, thread, start);
  }
  end(where);
  failure.rethrow();
}

}  // namespace ugs::search_detail
