#include "search/bfs/team.h"

#include <algorithm>

namespace ugs::search_detail {

void Team::begin() {
  std::fill(busy_.begin(), busy_.end(), 0.0);
  start_ = Clock::now();
}

void Team::busy_since(Region where, int thread, Clock::time_point start) {
  if (!where) return;
  const double seconds = seconds_since(start);
  workers_[thread].counters.busy_s += seconds;
  busy_[thread] = seconds;
}

void Team::end(Region where) {
  if (!where) return;
  const double wall = seconds_since(start_);
  regions_s_ += wall;
  double busy = 0;
  for (double b : busy_) busy += b;
  idle_.*where += std::max(0.0, threads_ * wall - busy);
}

}  // namespace ugs::search_detail
