#pragma once
// What a breadth-first search's checkpoint holds, and where checkpoints are kept. The engine fills a
// Checkpoint after every level and hands it to a CheckpointStore with the source of its frontier:
// the tree of steps as the engine keeps it, in slabs (each written once, then only named by later
// checkpoints), and the few states held outside the tree (those carried to the next batch) encoded
// whole. The store decides the files (io/, include/ugs/io/checkpoint_files.h), so the search never
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

// States of one depth held outside the tree: `count` states encoded back to back (the engine's state
// codec; their expression ids are stale and rebuilt on resume), and each state's key.
struct CheckpointLayer {
  HugeBytes states;
  uint64_t count = 0;
  std::vector<uint64_t> keys;
};

// One slab of the frontier's tree, as the engine encodes it (its bytes are opaque here). A slab never
// changes once written (one that loses expanded nodes is written again, under a new id), so a store
// writes it once, under its id, and the later checkpoints that still hold it only name it.
struct CheckpointSlab {
  uint64_t id = 0;               // unique among a run's slabs (per rank), from 1
  uint64_t nodes = 0;            // the tree holds its first `nodes` nodes
  uint64_t bytes = 0, hash = 0;  // its encoding's length and hash_bytes(): checked on reading it back
  bool operator==(const CheckpointSlab&) const = default;
};

// One depth of the tree: its slabs in order, the first `pending` nodes of which are not yet expanded.
struct CheckpointLevel {
  std::vector<CheckpointSlab> slabs;
  uint64_t pending = 0;
  bool operator==(const CheckpointLevel&) const = default;
};

// A checkpoint's frontier as it is written. The slabs no checkpoint holds yet come first, one at a
// time; then the whole tree, by depth; then the states outside the tree, in chunks the store writes as
// they come. Writing one holds a slab or a chunk in memory, never the frontier encoded.
class CheckpointSource {
 public:
  virtual ~CheckpointSource() = default;
  // A new slab's id and encoding; valid during the call.
  using Slab = std::function<void(uint64_t id, std::span<const uint8_t> bytes)>;
  virtual void new_slabs(const Slab& slab) = 0;
  // Every depth of the tree, once new_slabs() has written the new ones.
  virtual std::vector<CheckpointLevel> tree() const = 0;
  // `count` states encoded back to back, and their keys; valid during the call.
  using Chunk = std::function<void(uint64_t count, std::span<const uint8_t> states, std::span<const uint64_t> keys)>;
  virtual size_t depths() const = 0;
  // Calls `chunk` for the states of `depth` held outside the tree, in order, a chunk at a time.
  virtual void layer(size_t depth, const Chunk& chunk) = 0;
};

// A source over layers held whole and a tree already written (a checkpoint read back, tests): each
// layer one chunk, no new slab.
class LayersSource final : public CheckpointSource {
 public:
  explicit LayersSource(const std::vector<CheckpointLayer>& layers, std::vector<CheckpointLevel> tree = {})
      : layers_(layers), tree_(std::move(tree)) {}
  void new_slabs(const Slab&) override {}
  std::vector<CheckpointLevel> tree() const override { return tree_; }
  size_t depths() const override { return layers_.size(); }
  void layer(size_t depth, const Chunk& chunk) override {
    const CheckpointLayer& l = layers_[depth];
    chunk(l.count, std::span(l.states.data(), l.states.size()), l.keys);
  }

 private:
  const std::vector<CheckpointLayer>& layers_;
  std::vector<CheckpointLevel> tree_;
};

// Everything but the frontier when written (it comes from a CheckpointSource); read back, `tree` and
// `layers` hold it (the slabs' bytes are read with CheckpointStore::read_slab).
struct Checkpoint {
  std::string run_key;                 // what the run searches; a resume must match it
  int current = 0;                     // the depth being expanded
  std::vector<CheckpointLevel> tree;    // read back: the tree's slabs by depth
  std::vector<CheckpointLayer> layers;  // read back: the states outside the tree by depth
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
  // The bytes of a slab that rank `rank` wrote, checked against its length and hash. Throws InputError
  // naming the file when it is missing or they differ.
  virtual HugeBytes read_slab(int rank, const CheckpointSlab& slab) const = 0;
};

}  // namespace ugs
