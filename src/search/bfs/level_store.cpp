#include "search/bfs/level_store.h"

#include <algorithm>
#include <utility>

namespace ugs::search_detail {

void LevelStore::reset(size_t depths) {
  levels_.assign(depths, Level{});
  open_depth_ = -1;
}

void LevelStore::reserve_depths(size_t depths) {
  if (levels_.size() < depths) levels_.resize(depths);
}

size_t LevelStore::bytes() const {
  size_t n = 0;
  for (const Level& l : levels_) n += l.bytes();
  for (const Writer& w : writers_) {
    n += w.open.bytes() + w.next.bytes();
    for (const NodeSlab& f : w.full) n += f.bytes();
  }
  return n;
}

void LevelStore::pending_sizes(std::vector<uint64_t>& sizes) const {
  sizes.assign(levels_.size(), 0);
  for (size_t d = 0; d < levels_.size(); ++d) sizes[d] = levels_[d].pending();
  if (open_depth_ < 0) return;
  for (const Writer& w : writers_) {
    sizes[open_depth_] += w.open.nodes.size();
    for (const NodeSlab& f : w.full) sizes[open_depth_] += f.nodes.size();
  }
}

void LevelStore::open(int depth) {
  if (open_depth_ != depth) flush();
  open_depth_ = depth;
}

NodeSlab LevelStore::take_slab() {
  NodeSlab slab;
  {
    std::lock_guard<std::mutex> lock(spare_lock_);
    if (!spare_.empty()) {
      slab = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  slab.clear();
  return slab;
}

void LevelStore::ready_next_slab(int thread) {
  Writer& w = writers_[thread];
  if (w.next.nodes.capacity() == 0 && w.open.nodes.size() > NodeSlab::kNodes / 2) {
    w.next = take_slab();
    w.next.nodes.reserve(NodeSlab::kNodes);
  }
}

NodeSlab& LevelStore::room_in_open(Writer& w) {
  if (w.open.full()) {
    w.open.seal();
    w.full.push_back(std::exchange(w.open, w.next.nodes.capacity() ? std::exchange(w.next, NodeSlab{}) : take_slab()));
    w.open.nodes.reserve(NodeSlab::kNodes);
  }
  return w.open;
}

void LevelStore::keep_node(int thread, const Node& node, std::span<const Step> whole_steps) {
  Writer& w = writers_[thread];
  NodeSlab& open = room_in_open(w);
  const size_t opened = open.whole_steps.size();
  open.push_copy(node, whole_steps);
  ++w.kept;
  w.kept_bytes += sizeof(Node) + (open.whole_steps.size() - opened) * sizeof(Step);
}

void LevelStore::keep_base(int thread, const uint8_t* state, size_t bytes, uint64_t key) {
  Writer& w = writers_[thread];
  room_in_open(w).push_base(state, bytes, key);
  ++w.kept;
  w.kept_bytes += sizeof(Node) + bytes + sizeof(uint64_t);
}

void LevelStore::reset_kept() {
  for (Writer& w : writers_) w.kept = w.kept_bytes = 0;
}

uint64_t LevelStore::kept() const {
  uint64_t n = 0;
  for (const Writer& w : writers_) n += w.kept;
  return n;
}

uint64_t LevelStore::kept_bytes() const {
  uint64_t n = 0;
  for (const Writer& w : writers_) n += w.kept_bytes;
  return n;
}

void LevelStore::join_full() {
  for (Writer& w : writers_) {
    for (NodeSlab& f : w.full) levels_[open_depth_].add(std::move(f));
    w.full.clear();
  }
}

void LevelStore::flush() {
  if (open_depth_ < 0) return;
  join_full();
  for (Writer& w : writers_)
    if (!w.open.empty()) {
      w.open.seal();
      levels_[open_depth_].add(std::exchange(w.open, NodeSlab{}));
    }
  open_depth_ = -1;
}

void LevelStore::retreat(int depth) {
  for (size_t d = depth + 1; d < levels_.size(); ++d) levels_[d].drop_expanded(spare_);  // all expanded
  levels_[depth].drop_expanded(spare_);
  const size_t keep = kSparePerThread * writers_.size();
  if (spare_.size() > keep) {
    std::nth_element(spare_.begin(), spare_.begin() + keep, spare_.end(),
                     [](const NodeSlab& a, const NodeSlab& b) { return a.bytes() > b.bytes(); });
    spare_.erase(spare_.begin() + keep, spare_.end());
  }
  ++tree_;
}

}  // namespace ugs::search_detail
