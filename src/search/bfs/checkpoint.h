#pragma once
// Checkpoints of the breadth-first search (DESIGN §5): after every level, the layers of unexpanded
// states, the μGraphs found and the statistics so far go to DIR/checkpoint.ugs, atomically (temp file
// and rename), so a run killed at any moment resumes from its last completed level; one the time limit
// stopped inside a batch, with that batch.
#include <string>
#include <vector>

#include "search/bfs/state_codec.h"
#include "ugs/expr/oracle.h"
#include "ugs/search/engine.h"
#include "ugs/search/search.h"

namespace ugs::search_detail {

struct Checkpoint {
  std::string run_key;              // what the run searches; a resume must match it
  int current = 0;                  // the layer being expanded
  std::vector<Frontier> layers;     // pending states by depth (expressions stale: rebuilt on resume)
  std::vector<std::vector<uint64_t>> keys;  // and their keys
  Counters counters;                // everything counted so far
  std::vector<Counters> workers;
  std::vector<LevelStats> levels;
  std::vector<KernelGraph> found;
  std::vector<std::pair<uint64_t, double>> seen;  // function dedup: each key kept, its cheapest cost
  expr::OracleStats expr;
  double wall_s = 0, peak_frontier_mib = 0;
  uint64_t chunks = 0;
  bool complete = false;
};

std::string checkpoint_path(const std::string& dir);
// Throws InputError when the directory cannot be written.
void write_checkpoint(const std::string& dir, const Checkpoint& c);
// Throws InputError naming the file when it is missing, damaged or of another version.
Checkpoint read_checkpoint(const std::string& dir, const GraphRules& rules);
// The same with the file named (a distributed bfs writes one per rank, bfs_ranks.cpp).
void write_checkpoint_file(const std::string& path, const Checkpoint& c);
Checkpoint read_checkpoint_file(const std::string& path, const GraphRules& rules);

}  // namespace ugs::search_detail
