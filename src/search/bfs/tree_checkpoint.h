#pragma once
// The frontier's tree in a checkpoint, both ways. Written: the slabs no checkpoint holds yet are
// encoded one at a time (slab_codec.h) and the tree named by slab ids, so a level's checkpoint costs
// in proportion to the nodes made since the last one, not to the frontier; the states carried to the
// next batch, outside the tree, are encoded whole. Read back on resume: the slabs become the levels
// again, and the carried states bases after the pending nodes of theirs. Internal to src/search.
#include <cstdint>
#include <vector>

#include "search/bfs/cursor.h"
#include "search/bfs/level_store.h"
#include "search/bfs/team.h"
#include "ugs/search/bfs/checkpoint.h"

namespace ugs::search_detail {

class TreeSource final : public CheckpointSource {
 public:
  TreeSource(LevelStore& store, const Generator& gen, Team& team)
      : store_(store), gen_(gen), team_(team), parts_(team.size()) {}
  // For the next checkpoint: the depth being expanded, and the states carried into its next batch.
  void prepare(int current, const std::vector<NodeId>& carried) {
    current_ = current;
    carried_ = &carried;
  }
  // After a resume: ids go on after the largest the checkpoint holds.
  void resumed(uint64_t largest_id) { next_id_ = largest_id + 1; }

  void new_slabs(const Slab& slab) override;
  std::vector<CheckpointLevel> tree() const override;
  size_t depths() const override { return store_.depths(); }
  void layer(size_t depth, const Chunk& chunk) override;

  // The nodes and states every checkpoint so far wrote, and those the next one would (for the share
  // of the run the checkpoints may take).
  uint64_t written() const { return written_; }
  uint64_t unwritten() const;

 private:
  static constexpr size_t kRound = size_t{1} << 15;  // carried states per thread in a round
  struct Part {
    Cursor cursor;
    Frontier states;
    std::vector<uint64_t> keys;
  };
  LevelStore& store_;
  const Generator& gen_;
  Team& team_;
  std::vector<Part> parts_;  // per thread
  std::vector<uint8_t> encoded_;  // one slab's bytes, kept from one slab to the next
  uint64_t next_id_ = 1;
  int current_ = 0;
  const std::vector<NodeId>* carried_ = nullptr;
  uint64_t written_ = 0;
};

// Rebuilds the tree of checkpoint `c` in `store` (reset to its depths). Every slab is read from
// `files` (rank `rank`'s) and decoded, every parent and whole step checked to be in place, every step
// checked against its parent state and its query recomputed in this run's pool (state_check.h), every
// base checked whole and its expressions rebuilt; the states outside the tree become bases after the
// pending nodes of their level. Throws InputError where the checkpoint is damaged. Returns the largest slab id.
uint64_t restore_tree(const Checkpoint& c, const CheckpointStore& files, int rank, LevelStore& store,
                      const Generator& gen, const GraphRules& rules, Team& team);

}  // namespace ugs::search_detail
