#pragma once
// Checkpoints as files in one directory (--checkpoint DIR). One process writes DIR/checkpoint.ugs;
// rank r of a distributed run writes DIR/checkpoint.rank<r>.<0|1>.ugs, alternating between the two
// names so that the generation the manifest (DIR/manifest.json) names stays on disk until every
// rank has written the next one. Every file is written atomically (temp file and rename), so a run
// killed at any moment leaves the last committed checkpoint whole.
//
// The tree's slabs are files of their own, DIR/slab.<rank>.<id>.ugs (rank 0 in one process), each
// written once, atomically, before the checkpoint that first holds it; a write removes the slab files
// that neither it nor the checkpoint before holds.
//
// A checkpoint file: the magic line; each layer's states held outside the tree as chunks (a chunk's
// encoded states, then their keys); the function dedup's keys; then a JSON header (what was searched,
// statistics, μGraphs found, the tree as each depth's pending count and slabs [id, nodes, bytes,
// hash], each layer's chunks as [states, bytes]) and its length. The header comes last because the
// chunks are written as the search encodes them, before their sizes are known.
#include <cstdint>
#include <set>
#include <string>

#include "ugs/search/bfs/checkpoint.h"

namespace ugs {

class DirectoryCheckpoints final : public CheckpointStore {
 public:
  explicit DirectoryCheckpoints(std::string dir) : dir_(std::move(dir)) {}
  void write(const Checkpoint& checkpoint, CheckpointSource& states, int rank, int ranks, uint64_t generation) override;
  void commit(int ranks, uint64_t generation) override;
  Checkpoint read(int rank, int ranks, const std::string& run_key, const GraphRules& rules,
                  uint64_t* generation) const override;
  HugeBytes read_slab(int rank, const CheckpointSlab& slab) const override;

 private:
  std::string dir_;
  mutable std::set<uint64_t> last_slabs_;  // those the last checkpoint written or read holds
};

// One checkpoint file. Throws InputError naming the path when it cannot be written, or read back
// whole and of this version.
void write_checkpoint_file(const std::string& path, const Checkpoint& checkpoint, CheckpointSource& states);
Checkpoint read_checkpoint_file(const std::string& path, const GraphRules& rules);

}  // namespace ugs
