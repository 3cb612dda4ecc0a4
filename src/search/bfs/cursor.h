#pragma once
// A thread's way through the frontier's tree of steps (state_tree.h): one state, moved from node to
// node as a depth-first search moves, by taking back the steps below the nearest common ancestor and
// applying those down to the node. Siblings and cousins come one after another in a level, so a
// move is mostly one step back and one forward. Internal to src/search.
#include <cstdint>
#include <vector>

#include "search/bfs/state_tree.h"
#include "ugs/search/generator/generator.h"

namespace ugs::search_detail {

class Cursor {
 public:
  // Moves to node `id` of levels[depth]. `tree` names the tree's current content: when it differs from
  // the last move's (nodes were dropped), the cursor starts over from the node's base.
  void move_to(const std::vector<Level>& levels, int depth, NodeId id, const Generator& gen, uint64_t tree);
  const State& state() const { return state_; }
  // For a check that applies a step to the state and takes it back before the cursor moves again.
  State& state_for_check() { return state_; }
  // The key of the state under the cursor (state_tree.h): taken when asked, since only ranks, function
  // dedup and checkpoints read keys, and a step's hash is a fair share of a move.
  uint64_t key();

 private:
  enum class Undo : uint8_t { Op, Open, Close };
  struct Frame {
    NodeId id = 0;
    uint64_t key = 0;
    Undo undo = Undo::Op;
  };
  // A closing cannot be taken back from the closed state alone: the block graph (before its savers
  // were added) and its tiles' expressions are kept until it is.
  struct Closed {
    BlockGraph block;
    FixedVec<expr::ExprId, kMaxTiles> bexpr;
    bool symbolic = false;  // its family is closed_families_'s last
  };
  void apply(const Level& level, int depth, NodeId id, const Generator& gen);
  void take_back();  // the deepest frame

  State state_;
  int depth_ = -1, base_ = 0;  // path_[base_..depth_] are applied; path_[base_] is a base state
  int keyed_ = -1;             // path_[base_..keyed_] hold their keys
  const std::vector<Level>* levels_ = nullptr;  // the last move's
  std::vector<Frame> path_;
  std::vector<Closed> closed_;
  std::vector<Family> closed_families_;  // of the closed symbolic openings, apart: most are concrete
  std::vector<std::pair<int, NodeId>> chain_;  // scratch: the nodes to apply, deepest first
  uint64_t tree_ = ~uint64_t{0};
};

}  // namespace ugs::search_detail
