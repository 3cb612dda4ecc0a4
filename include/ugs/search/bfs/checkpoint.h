#pragma once
// What a breadth-first search's checkpoint holds, and where checkpoints are kept. The engine fills a
// Checkpoint after every level and hands it to a CheckpointStore with the source of its pending
// states; the store decides the files (io/, include/ugs/io/checkpoint_files.h), so the search never
// writes a file itself. A checkpoint taken inside a cut batch holds that batch as pending, so a
// resume does it again whole.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ugs/expr/oracle.h"
#include "ugs/ir/graph.h"
#include "ugs/search/engine.h"
#include "ugs/search/search.h"
#include "ugs/util/huge_pages.h"

namespace ugs {

// The pending states of one depth: `count` states encoded back to back (the engine's state codec;
// their expression ids are stale and rebuilt on resume), and each state's key.
struct CheckpointLayer {
  HugeBytes states;
  uint64_t count = 0;
  std::vector<uint64_t> keys;
};

// A checkpoint's pending states as they are written: depth by depth, in chunks the store writes as
// they come, so that writing one holds a chunk in memory rather than every pending state encoded.
class CheckpointSource {
 public:
  virtual ~CheckpointSource() = default;
  // `count` states encoded back to back, and their keys; valid during the call.
  using Chunk = std::function<void(uint64_t count, std::span<const uint8_t> states, std::span<const uint64_t> keys)>;
  virtual size_t depths() const = 0;
  // Calls `chunk` for the pending states of `depth`, in order, a chunk at a time.
  virtual void layer(size_t depth, const Chunk& chunk) = 0;
};

// A source over layers held whole (a checkpoint read back, tests): each layer one chunk.
class LayersSource final : public CheckpointSource {
 public:
  explicit LayersSource(const std::vector<CheckpointLayer>& layers) : layers_(layers) {}
  size_t depths() const override { return layers_.size(); }
  void layer(size_t depth, const Chunk& chunk) override {
    const CheckpointLayer& l = layers_[depth];
    chunk(l.count, std::span(l.states.data(), l.states.size()), l.keys);
  }

 private:
  const std::vector<CheckpointLayer>& layers_;
};

// Everything but the pending states when written (they come from a CheckpointSource); read back,
// `layers` holds them.
struct Checkpoint {
  std::string run_key;                 // what the run searches; a resume must match it
  int current = 0;                     // the depth being expanded
  std::vector<CheckpointLayer> layers;  // read back: the pending states by depth
  Counters counters;                   // everything counted so far
  std::vector<Counters> workers;
  std::vector<LevelStats> levels;
  std::vector<KernelGraph> found;
  std::vector<std::pair<uint64_t, double>> seen;  // function dedup: each key kept, its cheapest cost
  expr::OracleStats expr;
  double wall_s = 0, peak_frontier_mib = 0;
  uint64_t chunks = 0;
  bool complete = false;
};

// Where a run's checkpoints go. With ranks, each rank writes its own part of a generation, and rank
// 0 commits the generation once every rank has written it: a resume reads the last committed one.
class CheckpointStore {
 public:
  virtual ~CheckpointStore() = default;
  // Rank `rank` of `ranks` writes its part of generation `generation` (1, 2, ...), atomically: `c`
  // and the pending states `states` gives.
  virtual void write(const Checkpoint& c, CheckpointSource& states, int rank, int ranks, uint64_t generation) = 0;
  // Once every rank has written `generation`, it becomes the one a resume reads (rank 0 calls this).
  virtual void commit(int ranks, uint64_t generation) = 0;
  // Rank `rank` of `ranks`: its part of the last committed generation, which goes to *generation.
  // Throws InputError naming the file when there is none, it is damaged, another number of ranks
  // wrote it, or another search did (its run key differs from `run_key`).
  virtual Checkpoint read(int rank, int ranks, const std::string& run_key, const GraphRules& rules,
                          uint64_t* generation) const = 0;
};

}  // namespace ugs
