#pragma once
// The breadth-first driver's state and phases (bfs.h tells the design). Internal to src/search.
#include <omp.h>

#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "bfs.h"
#include "checkpoint.h"
#include "state_codec.h"
#include "ugs/search/comm.h"
#include "wire.h"

namespace ugs::search_detail {

// A step offered from state `parent` of the batch.
struct Pending {
  uint32_t parent;
  Step step;
};

// What one thread writes during a batch; read by the serial glue between phases.
struct alignas(64) ThreadScratch {
  std::vector<KernelGraph> completions;
  std::vector<uint32_t> owners;  // the batch state each completion came from
  std::vector<Step> steps;
  std::vector<Pending> pending;
  std::vector<uint8_t> keep;      // per pending: passed the oracle
  Frontier children;               // this batch's, reused: grows once to the largest batch
  std::vector<Frontier> slabs;     // the kept children, copied into slabs that join the next layer
  std::vector<uint64_t> keys;     // per child: its structural key
  std::vector<KernelGraph> kernel_level;  // function dedup: children outside any block graph
  std::vector<uint32_t> kernel_level_child;  // their index in `children`
  State child;
};

// The identity of a state under structural dedup, and (with ranks) what decides its owner.
uint64_t structural_key(const State& s);

class Bfs {
 public:
  Bfs(const Engine& e, const SearchConfig& cfg, const RunOptions& opt, std::string run_key,
      std::deque<Worker>& workers, Worker& collector, SearchResult& r, LevelProgress& progress);
  void start(const State& root);
  void resume();
  void run();

 private:
  // bfs.cpp: the layers and the checkpoints.
  size_t frontier_bytes() const;

  size_t batch_size() const;
  static constexpr size_t kMinBatch = 16;
  bool advance();  // moves `current_` to the next layer to expand; false when none is left
  void save(bool complete);
  void rebuild_expressions(Layer& l) const;

  // bfs_expand.cpp: one batch.
  void expand(int depth);
  void decode();
  void verify();
  void generate();
  void generate_one(size_t i, int thread);
  void confirm_run(size_t j);
  void check_exprs();
  void make_children(int depth);
  template <class F>
  void parallel(size_t n, F body);

  // bfs_dedup.cpp: which children survive.
  void dedup(std::vector<std::vector<uint8_t>>& keep);
  void dedup_structural(std::vector<std::vector<uint8_t>>& keep);
  void dedup_function(std::vector<std::vector<uint8_t>>& keep);

  // bfs_ranks.cpp: what the ranks of a distributed run share (each a collective); in one process,
  // each passes through (sync() only reads the local frontier).
  bool sync();  // the frontier's sizes summed over ranks into view_; false when any rank stops
  void share_z3(const std::vector<expr::ExprId>& queries);  // those only z3 answers: once over all ranks
  uint64_t route_out(std::vector<std::vector<uint8_t>>& keep);  // children others own leave; their count
  void route_in(int depth, const std::vector<std::vector<uint8_t>>& keep);  // and those this rank owns arrive
  void store(const Checkpoint& c);  // one file per rank, and a manifest
  Checkpoint load();
  struct View {
    bool stop = false;
    uint64_t bytes = 0;           // frontier bytes
    std::vector<uint64_t> sizes;  // states per layer
  };
  Comm* ranks_ = nullptr;  // null in one process
  View view_;
  uint64_t sent_before_ = 0;  // the rank's bytes sent when the batch began
  std::vector<std::vector<WireWriter>> outbox_;  // per thread, per rank: children it owns
  std::vector<std::vector<Frontier>> arrived_;   // per thread: slabs of children that arrived
  uint64_t generation_ = 0;                      // checkpoints written (the manifest's count)

  const Engine& e_;
  const SearchConfig& cfg_;
  const RunOptions& opt_;
  std::string run_key_;
  std::deque<Worker>& workers_;
  Worker& collector_;
  SearchResult& r_;
  LevelProgress& progress_;
  const int threads_;
  const Clock::time_point t0_ = Clock::now();

  std::vector<Layer> layers_;     // unexpanded states by depth
  int current_ = 0;
  std::vector<const uint8_t*> batch_;  // the batch's encodings, in place in the current layer
  uint64_t expanded_ = 0, children_bytes_ = 0;  // for the batch size under a memory limit
  // Slabs of spent states, reused for new children: after the first levels the frontier allocates
  // nothing and faults no page. Taken by the threads under the lock, once per slab filled.
  std::vector<Frontier> spare_;
  std::mutex spare_lock_;
  Frontier take_slab();
  std::vector<State> states_;     // the batch, decoded
  size_t n_ = 0;                  // states in the batch
  std::vector<uint8_t> matched_;  // per batch state: a completion's fingerprint matched
  std::vector<uint8_t> verified_;  // and one passed confirmation (written by the confirming tasks)
  std::vector<const KernelGraph*> graphs_;  // the batch's completions, fingerprinted together
  std::vector<uint32_t> owner_;   // the batch state each came from
  Fingerprints fp_;
  std::vector<std::pair<size_t, size_t>> runs_;  // one matched state's completions [begin, end)
  std::vector<ThreadScratch> scratch_;
  std::unordered_map<uint64_t, double> seen_;  // function dedup: key -> the cheapest state kept
  // Reused between batches, so a batch allocates nothing once the first ones have run.
  std::vector<expr::ExprId> queries_;
  std::vector<uint8_t> answers_;
  std::vector<std::tuple<uint64_t, uint32_t, uint32_t>> keyed_;  // function dedup: kernel-level states kept so far
};

// body(i, thread) for i in [0, n) on the run's threads, in interleaved chunks of 16 (the same split
// every run, with dynamic-like balance); each thread's time counts as its worker's busy time.
template <class F>
void Bfs::parallel(size_t n, F body) {
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    const auto t0 = Clock::now();
#pragma omp for schedule(static, 16) nowait
    for (size_t i = 0; i < n; ++i) body(i, t);
    workers_[t].c.busy_s += seconds_since(t0);
  }
}

}  // namespace ugs::search_detail
