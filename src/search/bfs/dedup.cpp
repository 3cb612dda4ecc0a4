#include "search/bfs/dedup.h"

#include <algorithm>

#include "ugs/cost/cost.h"

namespace ugs::search_detail {

namespace {

// Which of `parts` shares of the key space a key falls in: its high bits (a multiply-shift).
int share_of(uint64_t key, int parts) {
  return static_cast<int>((static_cast<unsigned __int128>(key) * static_cast<unsigned>(parts)) >> 64);
}

}  // namespace

Deduplicator::Deduplicator(Dedup kind, bool keyed, const Engine& engine, std::string cost_gpu, Team& team,
                           Worker& collector, const std::atomic<bool>* stop)
    : kind_(kind), keyed_(keyed), engine_(engine), cost_gpu_(std::move(cost_gpu)), team_(team),
      collector_(collector), stop_(stop), shares_(team.size()) {}

void Deduplicator::run(Batch& batch) {
  if (keyed_) structural(batch);
  if (kind_ == Dedup::Function) function(batch);
}

std::vector<std::pair<uint64_t, double>> Deduplicator::known_functions() const {
  std::vector<std::pair<uint64_t, double>> known(known_.begin(), known_.end());
  std::sort(known.begin(), known.end());
  return known;
}

void Deduplicator::restore(const std::vector<std::pair<uint64_t, double>>& known) {
  known_.insert(known.begin(), known.end());
}

// Each thread owns a share of the key space (by the keys' high bits) and an open-addressing set over
// it (slots by the low bits), so that each set stays in cache. The keys are first dealt to their
// shares, each thread dealing a fixed range of chunks, and each share is then read in chunk order: a
// key's first occurrence survives, as with one serial set (which serialized a wide machine). A key
// already in its set is a duplicate, dropped.
void Deduplicator::structural(Batch& batch) {
  const auto start = Clock::now();
  const size_t chunks = batch.chunk_count;
  const int threads = team_.size();
  std::vector<uint64_t> dropped(threads, 0);
  team_.each_thread(&IdleTimes::dedup,
                    [&](int t) { deal_keys(batch, t, chunks * t / threads, chunks * (t + 1) / threads); });
  team_.each_thread(&IdleTimes::dedup, [&](int t) { dropped[t] = drop_duplicates(batch, t); });
  for (uint64_t d : dropped) collector_.counters.pruned.dedup += d;
  collector_.counters.phase_s.dedup += seconds_since(start);
}

// The thread's chunks [begin, end): each key into the share it falls in (0 stored as 1, since 0 marks
// an empty slot: a collision among 2^64).
void Deduplicator::deal_keys(const Batch& batch, int thread, size_t begin, size_t end) {
  std::vector<std::vector<KeyAt>>& by_share = shares_[thread].by_share;
  const int threads = team_.size();
  by_share.resize(threads);
  for (std::vector<KeyAt>& share : by_share) share.clear();
  for (size_t c = begin; c < end; ++c) {
    const std::vector<uint64_t>& keys = batch.chunks[c].keys;
    const std::vector<uint8_t>& keep = batch.chunks[c].keep;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (!keep[i]) continue;  // pruned by the oracle
      const uint64_t key = std::max<uint64_t>(keys[i], 1);
      by_share[share_of(key, threads)].push_back({key, static_cast<uint32_t>(c), static_cast<uint32_t>(i)});
    }
  }
}

// The thread's share of the keys, in chunk order, into its set; returns the duplicates dropped.
uint64_t Deduplicator::drop_duplicates(Batch& batch, int thread) {
  size_t n = 0;
  for (const Shares& s : shares_) n += s.by_share[thread].size();
  size_t slots = 16;
  while (slots < 2 * n) slots *= 2;
  std::vector<uint64_t>& set = shares_[thread].set;
  set.assign(slots, 0);
  uint64_t dropped = 0;
  for (const Shares& s : shares_) {
    const std::vector<KeyAt>& keys = s.by_share[thread];
    for (size_t j = 0; j < keys.size(); ++j) {
      if (j + kPrefetch < keys.size()) __builtin_prefetch(&set[keys[j + kPrefetch].key & (slots - 1)]);
      const KeyAt& k = keys[j];
      size_t at = k.key & (slots - 1);
      while (set[at] != 0 && set[at] != k.key) at = (at + 1) & (slots - 1);
      if (set[at] == k.key) {
        batch.chunks[k.chunk].keep[k.child] = 0;
        ++dropped;
      }
      set[at] = k.key;
    }
  }
  return dropped;
}

// The batch's kernel-level children are classified by the run's backend (where their fingerprints
// are); a class's representative survives when its function is new or cheaper than every earlier one.
void Deduplicator::function(Batch& batch) {
  auto start = Clock::now();
  std::vector<const KernelGraph*> graphs;
  std::vector<std::pair<uint32_t, uint32_t>> where;  // chunk, child
  for (size_t c = 0; c < batch.chunk_count; ++c) {
    const Chunk& chunk = batch.chunks[c];
    for (size_t j = 0; j < chunk.kernel_level.size(); ++j) {
      const uint32_t child = chunk.kernel_level_child[j];
      if (!chunk.keep[child]) continue;
      graphs.push_back(&chunk.kernel_level[j]);
      where.emplace_back(static_cast<uint32_t>(c), child);
    }
  }
  if (graphs.empty()) return;
  const GpuSpec gpu = *gpu_preset(cost_gpu_);
  std::vector<double> cost(graphs.size());
  std::vector<uint64_t> tie(graphs.size());
  team_.each(&IdleTimes::dedup, graphs.size(), [&](size_t k, int) {
    cost[k] = estimate(*graphs[k], gpu).estimated_us;
    tie[k] = batch.chunks[where[k].first].keys[where[k].second];
  });
  collector_.counters.phase_s.dedup += seconds_since(start);

  start = Clock::now();
  FunctionClasses classes;
  engine_.verifier.backend().classify_functions(graphs, cost, tie, classes, stop_);
  collector_.counters.fingerprint_evals += graphs.size();
  collector_.counters.phase_s.fingerprint += seconds_since(start);
  if (raised(stop_)) return;  // the classes may be incomplete: none of them may join the known functions

  start = Clock::now();
  std::vector<uint8_t> explored(graphs.size(), 0);
  for (size_t j = 0; j < classes.keys.size(); ++j) {
    const uint32_t k = classes.best[j];
    const auto [it, fresh] = known_.try_emplace(classes.keys[j], cost[k]);
    if (fresh || cost[k] < it->second) {
      it->second = cost[k];
      explored[k] = 1;
    }
  }
  for (size_t k = 0; k < graphs.size(); ++k)
    if (!explored[k]) {
      batch.chunks[where[k].first].keep[where[k].second] = 0;
      ++collector_.counters.pruned.dedup;
    }
  collector_.counters.phase_s.dedup += seconds_since(start);
}

}  // namespace ugs::search_detail
