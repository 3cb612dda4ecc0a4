#pragma once
// Which children of a batch survive as distinct states (--dedup). Structural: equal keys are one state;
// the canonical form already admits every graph once, so this is a guard that counts what it drops
// (zero in a correct generator) and keeps the dfs result set. Keys tell apart only the children of
// one state (a key is its path), so the guard runs only where keys are taken anyway (keyed below);
// in one process the test of the generator's steps covers what it would catch. Function: children
// outside any block graph whose tensors have equal shapes and fingerprints are one state, and the
// cheapest by the cost model (then the smallest key) represents them in a batch; a later batch's
// state of an earlier function is explored only when it is cheaper than every one before it.
#include <atomic>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "search/bfs/batch.h"
#include "search/bfs/team.h"
#include "ugs/search/engine.h"
#include "ugs/search/search.h"

namespace ugs::search_detail {

class Deduplicator {
 public:
  // `stop`: null where a batch must run to its end (ranks).
  Deduplicator(Dedup kind, bool keyed, const Engine& engine, std::string cost_gpu, Team& team, Worker& collector,
               const std::atomic<bool>* stop);
  // Whether children carry keys: ranks route states by them, function dedup breaks ties with them.
  static bool keyed(Dedup kind, bool ranks) { return ranks || kind == Dedup::Function; }
  // Clears the keep flag of every child of the batch that is not a distinct state.
  void run(Batch& batch);
  // Function dedup's known functions, each with the cheapest cost explored (checkpoints), sorted.
  std::vector<std::pair<uint64_t, double>> known_functions() const;
  void restore(const std::vector<std::pair<uint64_t, double>>& known);

 private:
  // A child's key and where the child is: structural dedup deals the keys to the threads' shares.
  struct KeyAt {
    uint64_t key;
    uint32_t chunk, child;
  };
  // Per thread: the keys of its chunks by the share they fall in, and the set of the batch's keys in
  // its own share (open addressing).
  struct alignas(64) Shares {
    std::vector<std::vector<KeyAt>> by_share;
    std::vector<uint64_t> set;
  };
  static constexpr size_t kPrefetch = 8;  // keys ahead

  void structural(Batch& batch);
  void deal_keys(const Batch& batch, int thread, size_t begin, size_t end);
  uint64_t drop_duplicates(Batch& batch, int thread);
  void function(Batch& batch);

  const Dedup kind_;
  const bool keyed_;
  const Engine& engine_;
  const std::string cost_gpu_;
  Team& team_;
  Worker& collector_;
  const std::atomic<bool>* stop_;
  std::vector<Shares> shares_;
  std::unordered_map<uint64_t, double> known_;  // function dedup: key -> the cheapest state kept
};

}  // namespace ugs::search_detail
