#pragma once
// Every node of the breadth-first tree (state_tree.h), by depth, and where new children go. A depth's
// nodes are its Level: the pending ones and, once expanded, the ancestors of deeper ones. A batch's
// children are kept in their order after those kept before (Expander::keep_children decides it): the
// first fill the open slab, the rest whole slabs, one per task, so the threads copy them in parallel;
// the open slab lives across batches and joins its level when full or when flushed: before that
// level is read, before the schedule looks for states, before a checkpoint. States other ranks send
// go into an open slab per thread. Slabs of dropped levels are reused, so a search under a memory
// limit allocates nothing and faults no page after its first levels.
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "search/bfs/state_tree.h"

namespace ugs::search_detail {

class LevelStore {
 public:
  explicit LevelStore(int threads) : writers_(threads) {}

  // Starts over with `depths` empty levels (no open slabs).
  void reset(size_t depths);
  // Room for levels [0, depths).
  void reserve_depths(size_t depths);
  size_t depths() const { return levels_.size(); }
  Level& level(int depth) { return levels_[depth]; }
  const Level& level(int depth) const { return levels_[depth]; }
  const std::vector<Level>& levels() const { return levels_; }
  // Changes whenever nodes are dropped, so that cursors start over.
  uint64_t tree() const { return tree_; }

  // The bytes of every level and of the threads' slabs.
  size_t bytes() const;
  // Per depth: its pending nodes, counting those still in the threads' slabs.
  void pending_sizes(std::vector<uint64_t>& sizes) const;

  // The threads' slabs take children of `depth` from now on (flushing those of another depth first).
  void open(int depth);
  int open_depth() const { return open_depth_; }
  // The open slab's successor, readied ahead (by thread 0) when the open one is half full: faulting a
  // slab's pages in costs as much as filling it (on a virtual machine), and here it overlaps the
  // other threads' work.
  void ready_next_slab(int thread);

  // Keeping `count` nodes in order after those kept before: the pieces, each [from, to) of them into
  // its slab. Every piece is filled once (in parallel, each by one thread), with push_copy, then
  // join_in_order() takes them: the first piece goes on in the open slab, each other one is a whole
  // slab but the last, which becomes the open one.
  struct Piece {
    size_t from = 0, to = 0;
    NodeSlab* slab = nullptr;
  };
  const std::vector<Piece>& plan_in_order(size_t count);
  void join_in_order();
  // Into thread t's own open slab, a base state (order does not matter for those other ranks send).
  void keep_base(int thread, const uint8_t* state, size_t bytes, uint64_t key);
  // The nodes and bytes the threads kept since the last reset_kept().
  void reset_kept();
  uint64_t kept() const;
  uint64_t kept_bytes() const;
  // The threads' full slabs of bases join the open depth's level, in thread order (after a batch).
  void join_full();
  // And their open ones too; no depth is open afterwards.
  void flush();

  // Back to a shallower depth whose deeper levels are all expanded: they go, and so do the expanded
  // nodes of `depth` itself; their slabs are kept for reuse (the largest few per thread).
  void retreat(int depth);

 private:
  struct alignas(64) Writer {
    NodeSlab open;
    NodeSlab next;  // sized and its pages faulted in while expanding, for when `open` fills
    std::vector<NodeSlab> full;
    uint64_t kept = 0, kept_bytes = 0;
  };
  // Only the largest kSparePerThread slabs per thread are kept: a search in chunks drops many small
  // slabs, and keeping them all held more memory than the limit.
  static constexpr size_t kSparePerThread = 4;

  NodeSlab take_slab();  // under the lock, once per slab
  NodeSlab& open_slab() { return writers_[0].open; }  // the tail of the open depth's level
  // The thread's open slab, with room for one more node. A thread's first slab of a level grows as it
  // fills (a small level costs little); one that follows a full one is sized whole at once (readied
  // ahead, usually), so a big level's slabs are never copied as they grow.
  NodeSlab& room_in_open(Writer& writer);

  std::vector<Level> levels_;
  uint64_t tree_ = 0;
  std::vector<Writer> writers_;
  int open_depth_ = -1;  // the depth the open slabs hold children of (-1: none)
  std::vector<NodeSlab> spare_;
  std::mutex spare_lock_;
  std::vector<Piece> pieces_;         // the plan of the batch being kept
  std::vector<NodeSlab> piece_slabs_;  // its whole slabs
  size_t open_nodes_before_ = 0, open_steps_before_ = 0;  // the open slab before the batch
  uint64_t kept_in_order_ = 0, kept_in_order_bytes_ = 0;
};

}  // namespace ugs::search_detail
