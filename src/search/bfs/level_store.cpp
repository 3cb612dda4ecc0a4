#include "search/bfs/level_store.h"

#include <algorithm>
#include <stdexcept>
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

const std::vector<LevelStore::Piece>& LevelStore::plan_in_order(size_t count) {
  pieces_.clear();
  piece_slabs_.clear();
  NodeSlab& open = open_slab();
  open_nodes_before_ = open.nodes.size();
  open_steps_before_ = open.whole_steps.size();
  const size_t head = std::min(count, NodeSlab::kNodes - open.nodes.size());
  const size_t need = open.nodes.size() + head;  // grown as it fills, at most whole
  if (open.nodes.capacity() < need)
    open.nodes.reserve(std::max(need, std::min(NodeSlab::kNodes, 2 * open.nodes.capacity())));
  pieces_.push_back({0, head, &open});
  for (size_t from = head; from < count; from += NodeSlab::kNodes) {
    Writer& first = writers_[0];
    piece_slabs_.push_back(first.next.nodes.capacity() ? std::exchange(first.next, NodeSlab{}) : take_slab());
    piece_slabs_.back().nodes.reserve(NodeSlab::kNodes);
    pieces_.push_back({from, std::min(count, from + NodeSlab::kNodes), nullptr});
  }
  for (size_t i = 1; i < pieces_.size(); ++i) pieces_[i].slab = &piece_slabs_[i - 1];
  return pieces_;
}

void LevelStore::join_in_order() {
  NodeSlab& open = open_slab();
  kept_in_order_ += open.nodes.size() - open_nodes_before_;
  kept_in_order_bytes_ += (open.nodes.size() - open_nodes_before_) * sizeof(Node) +
                          (open.whole_steps.size() - open_steps_before_) * sizeof(Step);
  for (NodeSlab& slab : piece_slabs_) {
    kept_in_order_ += slab.nodes.size();
    kept_in_order_bytes_ += slab.nodes.size() * sizeof(Node) + slab.whole_steps.size() * sizeof(Step);
    if (!open.full()) throw std::logic_error("LevelStore::join_in_order: a piece after an open slab not full");
    open.seal();
    levels_[open_depth_].add(std::exchange(open, std::move(slab)));
  }
  if (open.full()) {
    open.seal();
    levels_[open_depth_].add(std::exchange(open, NodeSlab{}));
  }
  piece_slabs_.clear();
  pieces_.clear();
}

void LevelStore::keep_base(int thread, const uint8_t* state, size_t bytes, uint64_t key) {
  Writer& w = writers_[thread];
  room_in_open(w).push_base(state, bytes, key);
  ++w.kept;
  w.kept_bytes += sizeof(Node) + bytes + sizeof(uint64_t);
}

void LevelStore::reset_kept() {
  for (Writer& w : writers_) w.kept = w.kept_bytes = 0;
  kept_in_order_ = kept_in_order_bytes_ = 0;
}

uint64_t LevelStore::kept() const {
  uint64_t n = kept_in_order_;
  for (const Writer& w : writers_) n += w.kept;
  return n;
}

uint64_t LevelStore::kept_bytes() const {
  uint64_t n = kept_in_order_bytes_;
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
