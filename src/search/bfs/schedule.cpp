#include "search/bfs/schedule.h"

#include <algorithm>

namespace ugs::search_detail {

size_t Schedule::limit() const {
  if (!diving_) return limit_bytes_;
  return limit_bytes_ == 0 ? kDiveBytes : std::min(limit_bytes_, kDiveBytes);
}

bool Schedule::advance(const FrontierView& view, LevelStore& store, uint64_t& chunks, bool holding) {
  if (view.found && order_ != Order::DiveThroughout) diving_ = false;
  auto has = [&](int depth) { return view.sizes[depth] > 0; };
  const bool next_has = current_ + 1 < static_cast<int>(view.sizes.size()) && has(current_ + 1);
  if (next_has && (!has(current_) || ((probing_ || over(view)) && !holding))) {
    if (has(current_) && !probing_ && past_memory_limit(view)) ++chunks;
    ++current_;
    return true;
  }
  if (has(current_)) return true;
  probing_ = false;  // the probe reached a depth that runs out: it is searched upward from here
  for (int depth = current_ - 1; depth >= 0; --depth)
    if (has(depth)) {
      store.retreat(depth);
      current_ = depth;
      return true;
    }
  return false;
}

void Schedule::count(uint64_t states, uint64_t children_bytes) {
  if (cost_.size() <= static_cast<size_t>(current_)) cost_.resize(current_ + 1);
  cost_[current_].expanded += states;
  cost_[current_].children_bytes += children_bytes;
}

size_t Schedule::room_batch(const FrontierView& view) const {
  const Cost cost = static_cast<size_t>(current_) < cost_.size() ? cost_[current_] : Cost{};
  if (cost.expanded == 0) return kFirstBatch;
  const double per_state = std::max(1.0, double(cost.children_bytes) / double(cost.expanded));
  // With ranks, the limit is on the whole frontier and every rank expands its share of the room.
  const double room = double(limit()) - double(view.bytes);
  const size_t fit = room > 0 ? static_cast<size_t>(room / per_state / ranks_) : 0;
  // Past the limit the room is near 0, and batches of a few states would each pay a batch's fixed
  // costs: a batch may take children up to a sixteenth of the limit past it.
  const size_t slack = static_cast<size_t>(double(limit()) / 16 / per_state / ranks_);
  return std::min(std::max({fit, slack, kMinBatch}), kGrowth * cost.expanded);
}

size_t Schedule::batch_size(size_t pending, const FrontierView& view) const {
  const size_t n = std::min(pending, max_batch_);
  if (probing_) return std::min(n, kMinBatch);
  return limit() == 0 ? n : std::min(n, room_batch(view));
}

bool Schedule::fills_room(size_t pending, const FrontierView& view) const {
  return probing_ || (limit() > 0 && room_batch(view) <= std::min(pending, max_batch_));
}

}  // namespace ugs::search_detail
