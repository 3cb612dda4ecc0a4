// Which children of a batch survive as distinct states (--dedup). Structural: equal canonical forms are
// one state; the canonical form already admits every graph once, so this is a guard that counts what
// it drops (zero in a correct generator) and keeps the dfs result set. Function: children outside any
// block graph whose tensors have equal shapes and fingerprints are one state, and the cheapest by the
// cost model (then the smallest key) represents them in a batch; a later batch's state of an earlier
// function is explored only when it is cheaper than every one before it.
#include <algorithm>

#include "bfs_impl.h"
#include "ugs/cost/cost.h"

namespace ugs::search_detail {

void Bfs::dedup() {
  dedup_structural();
  if (opt_.dedup == Dedup::Function) dedup_function();
}

// Keys go into an open-addressing set in chunk order; a key already there is a duplicate, dropped.
void Bfs::dedup_structural() {
  const auto t0 = Clock::now();
  size_t n = 0;
  for (size_t c = 0; c < num_chunks(); ++c) n += chunks_[c].keys.size();
  size_t slots = 16;
  while (slots < 2 * n) slots *= 2;
  std::vector<uint64_t>& set = key_set_;
  set.assign(slots, 0);  // 0 marks an empty slot; a key of 0 is stored as 1 (a collision among 2^64)
  for (size_t c = 0; c < num_chunks(); ++c)
    for (size_t i = 0; i < chunks_[c].keys.size(); ++i) {
      const uint64_t key = std::max<uint64_t>(chunks_[c].keys[i], 1);
      size_t at = key & (slots - 1);
      while (set[at] != 0 && set[at] != key) at = (at + 1) & (slots - 1);
      if (set[at] == key) {
        chunks_[c].keep[i] = 0;
        ++collector_.c.pruned.dedup;
      }
      set[at] = key;
    }
  collector_.c.phase_s.dedup += seconds_since(t0);
}

// The batch's kernel-level children are classified by the run's backend (where their fingerprints
// are); a class's representative survives when its function is new or cheaper than every earlier one.
void Bfs::dedup_function() {
  auto t0 = Clock::now();
  std::vector<const KernelGraph*> graphs;
  std::vector<std::pair<uint32_t, uint32_t>> where;  // chunk, child
  for (size_t c = 0; c < num_chunks(); ++c)
    for (size_t j = 0; j < chunks_[c].kernel_level.size(); ++j) {
      const uint32_t child = chunks_[c].kernel_level_child[j];
      if (!chunks_[c].keep[child]) continue;
      graphs.push_back(&chunks_[c].kernel_level[j]);
      where.emplace_back(static_cast<uint32_t>(c), child);
    }
  if (graphs.empty()) return;
  const GpuSpec gpu = *gpu_preset(opt_.cost_gpu);
  std::vector<double> cost(graphs.size());
  std::vector<uint64_t> tie(graphs.size());
  parallel(graphs.size(), [&](size_t k, int) {
    cost[k] = estimate(*graphs[k], gpu).estimated_us;
    tie[k] = chunks_[where[k].first].keys[where[k].second];
  });
  collector_.c.phase_s.dedup += seconds_since(t0);

  t0 = Clock::now();
  FunctionClasses classes;
  e_.verifier.backend().classify_functions(graphs, cost, tie, classes, cut_flag());
  collector_.c.fingerprint_evals += graphs.size();
  collector_.c.phase_s.fingerprint += seconds_since(t0);
  if (cut()) return;  // the classes may be incomplete: none of them may join the known functions

  t0 = Clock::now();
  std::vector<uint8_t> explored(graphs.size(), 0);
  for (size_t j = 0; j < classes.keys.size(); ++j) {
    const uint32_t k = classes.best[j];
    const auto [it, fresh] = seen_.try_emplace(classes.keys[j], cost[k]);
    if (fresh || cost[k] < it->second) {
      it->second = cost[k];
      explored[k] = 1;
    }
  }
  for (size_t k = 0; k < graphs.size(); ++k)
    if (!explored[k]) {
      chunks_[where[k].first].keep[where[k].second] = 0;
      ++collector_.c.pruned.dedup;
    }
  collector_.c.phase_s.dedup += seconds_since(t0);
}

}  // namespace ugs::search_detail
