#pragma once
// The breadth-first driver's state and phases (bfs.h tells the design). Internal to src/search.
#include <omp.h>

#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "search/bfs/bfs.h"
#include "search/bfs/cursor.h"
#include "search/bfs/fingerprint_feed.h"
#include "search/bfs/state_tree.h"
#include "search/bfs/stealing_ranges.h"
#include "search/distributed/wire.h"
#include "ugs/search/bfs/checkpoint.h"
#include "ugs/search/distributed/comm.h"
#include "ugs/util/first_exception.h"

namespace ugs::search_detail {

// A step offered from state `parent` of the batch.
struct Pending {
  uint32_t parent;
  Step step;
};

// What one chunk of a batch (chunk_ consecutive states) produces. Threads take chunks from ranges they
// steal from each other (stealing_ranges.h); the serial glue reads the chunks in order, so the next
// level is the same in every run. A batch's own states come first, then those carried from the batch
// before it (Bfs::carry_deferred), each in chunks of their own.
struct Chunk {
  std::vector<Node> children;                // packed as the next level holds them
  std::vector<Step> openings;                // the children's distinct opening steps (a node names one)
  std::vector<uint32_t> opening_slots;       // openings by hash (store_opening)
  std::vector<uint64_t> keys;                // per child: its key
  std::vector<uint8_t> keep;                 // whether it survives dedup and routing (1 when made)
  std::vector<KernelGraph> kernel_level;     // function dedup: the children outside any block graph
  std::vector<uint32_t> kernel_level_child;  // and their index among the chunk's children
  std::vector<Pending> misses;               // steps whose query the oracle's cache did not know
  std::vector<uint32_t> deferred;            // states with completions: expanded once they are verified
  void clear();
};

// A chunk's completions. The feed writes their flags while the next batch expands, so these are kept
// apart from the chunks, in two sets that batches take in turn.
struct Fed {
  std::vector<KernelGraph> completions;
  std::vector<uint32_t> owners;  // the batch state each came from; once carried, the carried state's
  std::vector<uint8_t> matched;  // per completion: its fingerprint matched (from the feed)
  void clear();
};

// A child's key and where the child is: structural dedup deals the keys to the threads' shares.
struct KeyAt {
  uint64_t key;
  uint32_t chunk, child;
};

// One thread's scratch memory, reused by every batch.
struct alignas(64) ThreadScratch {
  Cursor cursor;  // on the batch state being expanded
  std::unique_ptr<FingerprintContext> fingerprints;  // the backend's reuse between this thread's candidates
  State child;    // function dedup, routing: a child, applied to a copy of its parent
  std::vector<Step> steps;
  Frontier buffer;  // a child being encoded (routing, checkpoints)
  // The kept children go into the thread's open slab, which lives across batches: a slab joins its
  // level when full (through `full`, in thread order after the batch) or when flushed.
  NodeSlab open;
  NodeSlab next;  // sized and its pages faulted in while expanding, for when `open` fills
  std::vector<NodeSlab> full;
  uint64_t kept = 0, kept_bytes = 0;  // this batch's kept children and their bytes
  uint64_t candidates = 0, cache_hits = 0;  // this batch's steps, and queries the cache answered inline
  // Structural dedup: the keys of this thread's chunks by the share they fall in, and the set of the
  // batch's keys in this thread's share (open addressing).
  std::vector<std::vector<KeyAt>> key_shares;
  std::vector<uint64_t> key_set;
};

class Bfs {
 public:
  Bfs(const Engine& e, const SearchConfig& cfg, const RunOptions& opt, std::string run_key,
      std::deque<Worker>& workers, Worker& collector, SearchResult& r, LevelProgress& progress);
  void start(const State& root);
  void resume();
  void run();

 private:
  // bfs.cpp: the levels and the checkpoints.
  size_t frontier_bytes() const;
  // In one process the stop (the time limit) is obeyed inside a batch, between states and between
  // a confirmation's tests: a full-size level can be one batch of minutes, and one CPU confirmation
  // of a full-size μGraph seconds. With ranks a batch runs to its end, as every rank must reach the
  // batch's collectives.
  bool cut() const { return !ranks_ && e_.stop.load(std::memory_order_relaxed); }
  const std::atomic<bool>* cut_flag() const { return ranks_ ? nullptr : &e_.stop; }  // what cut() reads
  // What a checkpoint records of the run's progress. The one taken before each batch is what a batch
  // cut short leaves: the batch, and the states carried into it, stay pending and are done again
  // whole on resume, so their μGraphs are found once and their states counted once. (The results of
  // the cut run keep what it did do.)
  struct Committed {
    Counters collector;
    std::vector<Counters> workers;
    std::vector<size_t> found;  // per worker: how many of its μGraphs
    std::vector<LevelStats> levels;
    expr::OracleStats expr;
  };
  Committed committed() const;  // as the run stands now
  Committed before_batch_;
  bool cut_ = false;  // the last batch was cut short: the checkpoint holds before_batch_

  size_t batch_size() const;
  static constexpr size_t kMinBatch = 16;
  bool advance();  // moves `current_` to the next level to expand; false when none is left
  void retreat(int depth);  // to a shallower level: the deeper ones are done and go
  void save(bool complete);
  std::vector<CheckpointLayer> materialize();  // the pending states, by depth

  // bfs_expand.cpp: one batch.
  // States per chunk: 64, or fewer in a small batch so that every thread gets at least 32 chunks (a
  // small level's few heavy states, with completions to verify, then spread over the threads).
  static constexpr size_t kChunk = 64;
  size_t chunk_ = kChunk;
  static constexpr size_t kPrefetch = 8;  // nodes ahead of the cursor (visit())
  bool expand(int depth);  // false: the stop cut the batch short (it stays pending)
  void lay_out_chunks();        // the batch's own states and the carried ones into chunks
  std::pair<size_t, size_t> states_of(size_t chunk) const;  // the chunk's batch states [begin, end)
  void expand_chunks();         // every state, but those with completions: generated, children made
  void verify();                // the completions' fingerprints; matches confirmed
  void fingerprint_completions();
  void gather_completions(std::vector<Fed>& fed, size_t chunks, uint32_t first_owner);
  void expand_deferred();       // the states with completions that none of theirs passed
  void carry_deferred();        // or, in a batch that does not end its level, those states to the next
  void settle_misses();         // the queries the cache did not know, in one oracle batch
  void keep_children(int depth);  // deduplicated, routed, copied into the open slabs
  void visit(uint32_t i, int t);  // moves thread t's cursor to batch state i
  void generate(uint32_t i, Chunk& c, int t);  // state i, under thread t's cursor
  void make_child(uint32_t i, const Step& st, Chunk& c, int t);
  void confirm_field_tests_in_bulk();
  uint64_t verified_count() const;  // μGraphs confirmed so far, over the workers
  uint64_t states_count() const;    // states visited so far, over the workers
  void confirm_run(size_t j);
  // The parallel regions, each named by the entry of r_.idle its threads' waiting counts in.
  using Region = double IdleTimes::*;
  template <class F>
  void parallel(Region where, size_t n, F body, bool dynamic = false);
  template <class F>
  void each_chunk(Region where, size_t chunks, F body);  // body(chunk index, thread) over chunks [0, chunks)
  template <class F>
  void each_thread(Region where, F body);  // body(thread) once on each of the run's threads
  void begin_region();
  void busy_since(int t, Clock::time_point t0);  // thread t worked in the region from t0 to now
  void end_region(Region where);
  StealingRanges ranges_;
  Clock::time_point region_start_;
  std::vector<double> region_busy_;  // per thread: its time in the region's body
  double regions_s_ = 0, feed_wait_s_ = 0;  // the wall of the regions so far, and of the feed's waits

  // bfs_dedup.cpp: which children survive.
  void dedup();
  void dedup_structural();
  void deal_keys(int t, size_t begin, size_t end);
  uint64_t drop_duplicates(int t);
  void dedup_function();

  // bfs_ranks.cpp: what the ranks of a distributed run share (each a collective); in one process,
  // each passes through (sync() only reads the local frontier).
  bool sync();  // the frontier's sizes summed over ranks into view_; false when any rank stops
  void share_z3(const std::vector<expr::ExprId>& queries);  // those only z3 answers: once over all ranks
  uint64_t route_out();  // children others own leave (their keep cleared); their count
  void route_in();       // and those this rank owns arrive, into the open slabs
  void store(const Checkpoint& c);  // every rank's part, then the generation committed
  Checkpoint load();
  struct View {
    bool stop = false;
    uint64_t bytes = 0;           // frontier bytes
    std::vector<uint64_t> sizes;  // pending states per level
  };
  Comm* ranks_ = nullptr;  // null in one process
  View view_;
  uint64_t sent_before_ = 0;  // the rank's bytes sent when the batch began
  std::vector<WireWriter> outbox_;  // per rank: children it owns
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
  const bool batched_;  // completions go to the backend in one call per batch (else each state's at once)
  const Clock::time_point t0_ = Clock::now();

  std::vector<Level> levels_;  // every node by depth: the pending ones, and the ancestors of deeper ones
  int current_ = 0;
  uint64_t tree_ = 0;  // changes whenever nodes are dropped, so that cursors start over
  std::vector<NodeId> batch_;     // the batch's nodes in the current level
  std::vector<uint64_t> batch_keys_;  // and their keys
  uint64_t expanded_ = 0, children_bytes_ = 0;  // for the batch size under a memory limit
  // Slabs of dropped levels, reused for new children: after the first levels, a search under a memory
  // limit allocates nothing and faults no page. Taken by the threads under the lock, once per slab.
  // Only the kSparePerThread largest per thread are kept: a search in chunks drops many small slabs,
  // and keeping them all held more memory than the limit (gqa at 256 MiB: 278 thousand, 370 MB).
  static constexpr size_t kSparePerThread = 4;
  std::vector<NodeSlab> spare_;
  std::mutex spare_lock_;
  NodeSlab take_slab();
  // Thread t's next slab, readied ahead when its open one is half full: faulting a slab's pages in
  // costs as much as filling it (on a virtual machine), and here it overlaps the other threads' work.
  void ready_next_slab(int t);
  // The threads' open slabs hold children of level open_depth_ (-1: none). They join it when full, and
  // all of them before that level is read: before it is expanded, before advance() looks for states
  // (when the current level runs out), before a checkpoint.
  int open_depth_ = -1;
  NodeSlab& room_in_open(ThreadScratch& s);  // the thread's open slab, with room for one more node
  void keep_node(ThreadScratch& s, const Node& n, std::span<const Step> openings);  // into the open slab
  void keep_base(ThreadScratch& s, const uint8_t* state, size_t bytes, uint64_t key);
  void join_full();                                                 // after a batch, in thread order
  void flush();
  size_t n_ = 0;                  // states in the batch: its own, then the carried ones
  size_t own_ = 0;                // its own: new states of the level
  size_t own_chunks_ = 0, chunks_n_ = 0;  // the chunks of its own states, and of all of them
  std::vector<Chunk> chunks_;     // the batch's, reused
  // Pipelining, so that the device fingerprints a batch's completions while the next batch expands
  // (one process, no memory limit, completions fed): the states with completions of a batch that
  // does not end its level are carried to the next batch, which confirms them and expands those not
  // verified. The level's last batch drains: it finishes its own too. A carried state counts as a
  // state when it is finished, and a checkpoint holds it as pending.
  const bool pipelined_;
  bool draining_ = true;          // the batch finishes its own states with completions
  // The states carried into the next batch (or the running one), of the current level: every batch
  // before a level changes drains.
  std::vector<NodeId> carry_;
  std::vector<Fed> fed_[2];       // the completions of the running batch, and of the one before
  int fed_now_ = 0;
  size_t fed_before_chunks_ = 0;  // the chunks of fed_[1 - fed_now_] (the batch before's own)
  uint64_t fed_before_mark_ = 0;  // the feed's add() calls before the running batch's
  std::vector<size_t> first_child_;  // keep_children: chunk c's children start at first_child_[c]
  std::vector<uint8_t> verified_;  // per batch state: one of its completions passed confirmation
  std::vector<const KernelGraph*> graphs_;  // the batch's completions, fingerprinted together
  std::vector<uint32_t> owner_;   // the batch state each came from
  Fingerprints fp_;
  std::vector<std::pair<size_t, size_t>> runs_;  // one matched state's completions [begin, end)
  std::vector<const KernelGraph*> matched_;       // the runs' matching completions, when confirmed in bulk
  std::vector<uint32_t> matched_at_;              // per completion: its index in matched_
  std::vector<uint8_t> confirm_passes_;           // their field tests' outcomes (Verifier::confirm_field_tests)
  std::vector<ThreadScratch> scratch_;
  std::unordered_map<uint64_t, double> seen_;  // function dedup: key -> the cheapest state kept
  // Reused between batches, so a batch allocates nothing once the first ones have run.
  std::vector<expr::ExprId> queries_;
  std::vector<uint8_t> answers_;
  size_t num_chunks() const { return chunks_n_; }
  // The batch's completions fingerprinted as their chunks are expanded, when they go in batches.
  // After fed_, so that it stops (and stops reading and writing them) first.
  std::unique_ptr<FingerprintFeed> feed_;
};

// body(i, thread) for i in [0, n) on the run's threads; each thread's time counts as its worker's busy
// time. Static: interleaved runs of 16, the same split every run (for work whose order matters);
// dynamic: one at a time, to whichever thread is free.
template <class F>
void Bfs::parallel(Region where, size_t n, F body, bool dynamic) {
  FirstException failure;
  begin_region();
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    const auto t0 = Clock::now();
    if (dynamic) {
#pragma omp for schedule(dynamic, 1) nowait
      for (size_t i = 0; i < n; ++i) failure.capture([&] { body(i, t); });
    } else {
#pragma omp for schedule(static, 16) nowait
      for (size_t i = 0; i < n; ++i) failure.capture([&] { body(i, t); });
    }
    busy_since(t, t0);
  }
  end_region(where);
  failure.rethrow();
}

template <class F>
void Bfs::each_thread(Region where, F body) {
  FirstException failure;
  begin_region();
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    const auto t0 = Clock::now();
    failure.capture([&] { body(t); });
    busy_since(t, t0);
  }
  end_region(where);
  failure.rethrow();
}

template <class F>
void Bfs::each_chunk(Region where, size_t chunks, F body) {
  ranges_.reset(chunks, threads_);
  FirstException failure;
  begin_region();
#pragma omp parallel num_threads(threads_)
  {
    const int t = omp_get_thread_num();
    const auto t0 = Clock::now();
    for (size_t c; !failure.failed() && ranges_.next(t, c);) failure.capture([&] { body(c, t); });
    busy_since(t, t0);
  }
  end_region(where);
  failure.rethrow();
}

}  // namespace ugs::search_detail
