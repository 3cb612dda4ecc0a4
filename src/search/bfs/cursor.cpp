#include "search/bfs/cursor.h"

#include <algorithm>

namespace ugs::search_detail {

void Cursor::move_to(const std::vector<Level>& levels, int depth, NodeId id, const Generator& gen, uint64_t tree) {
  if (tree != tree_) {
    depth_ = keyed_ = -1;
    closed_.clear();
    closed_families_.clear();
    tree_ = tree;
  }
  // Up from the node until a node the cursor stands on (kept) or a base (everything is replaced).
  chain_.clear();
  int k = depth;
  for (NodeId at = id;; --k) {
    if (k >= base_ && k <= depth_ && path_[k].id == at) break;
    chain_.emplace_back(k, at);
    const Node& n = levels[k].node(at);
    if (n.parent == kBase) {
      depth_ = keyed_ = -1;
      closed_.clear();
      closed_families_.clear();
      break;
    }
    at = n.parent;
  }
  while (depth_ > k) take_back();
  levels_ = &levels;
  for (auto it = chain_.rbegin(); it != chain_.rend(); ++it) apply(levels[it->first], it->first, it->second, gen);
}

void Cursor::apply(const Level& level, int depth, NodeId id, const Generator& gen) {
  if (path_.size() <= static_cast<size_t>(depth)) path_.resize(depth + 1);
  const Node& n = level.node(id);
  const NodeSlab& slab = level.slab_of(id);
  Frame& f = path_[depth];
  f.id = id;
  if (n.parent == kBase) {
    decode(slab.bases.state_bytes(n.step), state_);
    f.key = slab.base_keys[n.step];
    base_ = keyed_ = depth;
  } else {
    if (is_op(n)) {  // most steps: applied without building a Step
      Generator::apply_op(state_, op_of(n), n.query);
      f.undo = Undo::Op;
    } else if (const Step* open = stored_step(n, slab.whole_steps); open && open->kind == Step::Kind::OpenBlock) {
      gen.apply_in_place(state_, *open);  // an opening reads no query: applied where it is stored
      f.undo = Undo::Open;
    } else {
      const Step st = unpack_step(n, slab.whole_steps);
      if (st.kind == Step::Kind::CloseBlock) {
        closed_.push_back({state_.block, state_.bexpr, state_.family.symbolic()});
        if (state_.family.symbolic()) closed_families_.push_back(state_.family);
      }
      gen.apply_in_place(state_, st);
      f.undo = st.kind == Step::Kind::CloseBlock ? Undo::Close : Undo::Op;  // else an op of a symbolic opening
    }
  }
  depth_ = depth;
}

uint64_t Cursor::key() {
  for (; keyed_ < depth_; ++keyed_) {
    const Level& level = (*levels_)[keyed_ + 1];
    Frame& f = path_[keyed_ + 1];
    f.key = child_key(path_[keyed_].key, step_hash(level.node(f.id), level.slab_of(f.id).whole_hashes));
  }
  return path_[depth_].key;
}

void Cursor::take_back() {
  const Frame& f = path_[depth_--];
  keyed_ = std::min(keyed_, depth_);
  switch (f.undo) {
    case Undo::Op:
      Generator::undo_op(state_);
      break;
    case Undo::Open:
      state_.open = false;  // a kernel-level state holds no block graph
      state_.block.clear();
      state_.bexpr.clear();
      state_.family.clear();
      break;
    case Undo::Close:
      state_.kernel.pop_op();
      state_.kexpr.resize(state_.kernel.num_tensors());
      state_.open = true;
      state_.block = closed_.back().block;
      state_.bexpr = closed_.back().bexpr;
      state_.family.clear();
      if (closed_.back().symbolic) {
        state_.family = closed_families_.back();
        closed_families_.pop_back();
      }
      closed_.pop_back();
      break;
  }
}

}  // namespace ugs::search_detail
