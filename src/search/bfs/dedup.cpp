// Which children of a batch survive as distinct states (--dedup). Structural: equal canonical forms are
// one state; the canonical form already admits every graph once, so this is a guard that counts what
// it drops (zero in a correct generator) and keeps the dfs result set. Function: children outside any
// block graph whose tensors have equal shapes and fingerprints are one state, and the cheapest by the
// cost model (then the smallest key) represents them in a batch; a later batch's state of an earlier
// function is explored only when it is cheaper than every one before it.
#include <algorithm>

#include "search/bfs/bfs_impl.h"
#include "ugs/cost/cost.h"

namespace ugs::search_detail {

namespace {

// Which of `parts` shares of the key space a key falls in: its high bits (a multiply-shift).
int share_of(uint64_t key, int parts) {
  return static_cast<int>((static_cast<unsigned __int128>(key) * static_cast<unsigned>(parts)) >> 64);
}

}  // namespace

void Bfs::dedup() {
  dedup_structural();
  if (opt_.dedup == Dedup::Function) dedup_function();
}

// Each thread owns a share of the key space (by the keys' high bits) and an open-addressing set over
// it (slots by the low bits), a sixteenth of the whole at 16 threads, so it stays in cache. The keys
// are first dealt to their shares, each thread dealing a fixed range of chunks, and each share is then
// read in chunk order: a key's first occurrence survives, as with one serial set (which took a ninth
// of a 16-thread search's wall time). A key already in its set is a duplicate, dropped.
void Bfs::dedup_structural() {
  const auto t0 = Clock::now();
  const size_t chunks = num_chunks();
  std::vector<uint64_t> dropped(threads_, 0);
  each_thread(&IdleTimes::dedup, [&](int t) { deal_keys(t, chunks * t / threads_, chunks * (t + 1) / threads_); });
  each_thread(&IdleTimes::dedup, [&](int t) { dropped[t] = drop_duplicates(t); });
  for (uint64_t d : dropped) collector_.c.pruned.dedup += d;
  collector_.c.phase_s.dedup += seconds_since(t0);
}

// Thread t's chunks [begin, end): each key into the share it falls in (0 stored as 1, since 0 marks an
// empty slot: a collision among 2^64).
void Bfs::deal_keys(int t, size_t begin, size_t end) {
  std::vector<std::vector<KeyAt>>& shares = scratch_[t].key_shares;
  shares.resize(threads_);
  for (std::vector<KeyAt>& s : shares) s.clear();
  for (size_t c = begin; c < end; ++c) {
    const std::vector<uint64_t>& keys = chunks_[c].keys;
    for (size_t i = 0; i < keys.size(); ++i) {
      const uint64_t key = std::max<uint64_t>(keys[i], 1);
      shares[share_of(key, threads_)].push_back({key, static_cast<uint32_t>(c), static_cast<uint32_t>(i)});
    }
  }
}

// Share t's keys, in chunk order, into thread t's set; returns the duplicates dropped.
uint64_t Bfs::drop_duplicates(int t) {
  size_t n = 0;
  for (const ThreadScratch& s : scratch_) n += s.key_shares[t].size();
  size_t slots = 16;
  while (slots < 2 * n) slots *= 2;
  std::vector<uint64_t>& set = scratch_[t].key_set;
  set.assign(slots, 0);
  uint64_t dropped = 0;
  for (const ThreadScratch& s : scratch_) {
    const std::vector<KeyAt>& keys = s.key_shares[t];
    for (size_t j = 0; j < keys.size(); ++j) {
      if (j + kPrefetch < keys.size()) __builtin_prefetch(&set[keys[j + kPrefetch].key & (slots - 1)]);
      const KeyAt& k = keys[j];
      size_t at = k.key & (slots - 1);
      while (set[at] != 0 && set[at] != k.key) at = (at + 1) & (slots - 1);
      if (set[at] == k.key) {
        chunks_[k.chunk].keep[k.child] = 0;
        ++dropped;
      }
      set[at] = k.key;
    }
  }
  return dropped;
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
  parallel(&IdleTimes::dedup, graphs.size(), [&](size_t k, int) {
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
