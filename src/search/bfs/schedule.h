#pragma once
// Which depth the breadth-first engine expands next, and how many of its states at once. Without a
// memory limit every level is finished before the next: each is one level of the search. Past the
// limit, the newest level is expanded first, so the frontier shrinks toward the leaves (depth-first
// over chunks), in batches sized to the room left; when a level runs out, the deepest one still
// holding states is next, and the levels below it, all expanded, go. The sizes it decides on are the
// frontier's over every rank (RankExchange::sync), so that every rank takes the same decision.
// A run may start with a probe, for a μGraph early (docs/bfs.md, "The probe"): it expands kMinBatch
// states of each depth (the most promising, as a level keeps its states) and moves down at once,
// depth-first as past the limit, until a depth runs out; it then goes back up as above, so what those
// first states reach is searched whole before the levels are. Then, until some rank has confirmed a
// μGraph, the run dives: it keeps to a limit of kDiveBytes (or the memory limit, if lower), depth-
// first over chunks of each level, as a depth-first search reaches its first μGraph without
// finishing the levels above it; the first μGraph lifts it, but under --objective best, where each
// μGraph confirmed early lowers the bound that cuts the rest, the dive lasts the whole run.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "search/bfs/level_store.h"

namespace ugs::search_detail {

// The frontier as the schedule sees it: summed over ranks.
struct FrontierView {
  bool stop = false;              // some rank was stopped
  uint64_t bytes = 0;             // the frontier's bytes
  std::vector<uint64_t> sizes;    // pending states per depth
  std::vector<uint64_t> largest;  // per depth, the most pending states one rank holds (RankExchange::spreads)
  bool found = false;             // some rank has confirmed a μGraph: the dive is over
};

class Schedule {
 public:
  // How a run goes: level by level from the start (config bfs_probe 0); a probe, then a dive until
  // the first μGraph; or a probe, then a dive to the end (--objective best).
  enum class Order : uint8_t { Levels, DiveToFirst, DiveThroughout };

  // `memory_limit_mib` 0: none. `max_batch`: the config's bfs_batch. `ranks`: 1 in one process.
  Schedule(int64_t memory_limit_mib, size_t max_batch, int ranks, Order order)
      : limit_bytes_(memory_limit_mib > 0 ? size_t(memory_limit_mib) << 20 : 0), max_batch_(max_batch),
        ranks_(ranks), order_(order), probing_(order != Order::Levels), diving_(order != Order::Levels) {}

  int current() const { return current_; }
  bool probing() const { return probing_; }
  bool diving() const { return diving_; }
  // Continues a run at `depth`, without a probe (the run had its own); it dives as its order says,
  // until the first sync that finds a μGraph confirmed (those of the checkpoint count) or to the end.
  void resume_at(int depth) {
    current_ = depth;
    probing_ = false;
  }
  // Moves to the next depth to expand (dropping the expanded levels below it from `store` when it goes
  // back up); false when none is left. A move down while the current depth still has states past the
  // memory limit counts as a chunk; a probe's or a dive's do not. `holding`: states carried from the last
  // batch wait to be finished at the current depth, so it stays there (their batch drains) instead of
  // moving down.
  bool advance(const FrontierView& view, LevelStore& store, uint64_t& chunks, bool holding);
  // While probing, kMinBatch states; else a whole batch of the current depth's `pending` states, or
  // under the limit as many states as the room left holds children for (by the children's bytes per
  // state so far at this depth), at least kMinBatch: the frontier passes the limit by at most about
  // the children of kMinBatch states.
  // Under the limit a depth's first batch is kFirstBatch states and each next one at most kGrowth
  // times the states it expanded so far: states at one depth can make a hundred times more children
  // than those above (a kernel graph of four tensors has thousands of openings), so no estimate is
  // carried from another depth, and one taken from a few states is trusted a few times over only.
  size_t batch_size(size_t pending, const FrontierView& view) const;
  // Whether that batch is cut to the room left (or a probe's): its children may take the frontier past
  // the limit, and the next batch be at another depth, so it carries no states to the next one.
  bool fills_room(size_t pending, const FrontierView& view) const;
  // Whether the frontier is past the limit in force (the dive's while it lasts).
  bool over(const FrontierView& view) const { return limit() > 0 && view.bytes > limit(); }
  // What a batch of the current depth cost: the states whose children were kept, and their bytes.
  void count(uint64_t states, uint64_t children_bytes);

  static constexpr size_t kMinBatch = 16;
  static constexpr size_t kFirstBatch = 256;
  static constexpr size_t kGrowth = 4;
  // A few hundred thousand tree nodes: room for whole levels of a small space, and chunks of a few
  // thousand states of a wide one.
  static constexpr size_t kDiveBytes = size_t{4} << 20;

 private:
  const size_t limit_bytes_;
  const size_t max_batch_;
  const int ranks_;
  const Order order_;
  size_t room_batch(const FrontierView& view) const;  // the states whose children fit the room left
  size_t limit() const;  // the limit in force: 0 for none
  bool past_memory_limit(const FrontierView& view) const { return limit_bytes_ > 0 && view.bytes > limit_bytes_; }
  int current_ = 0;
  bool probing_;
  bool diving_;
  struct Cost {
    uint64_t expanded = 0, children_bytes = 0;
  };
  std::vector<Cost> cost_;  // per depth
};

}  // namespace ugs::search_detail
