#pragma once
// A whole search: build the engine, run a strategy, gather the workers' results into a sorted,
// deduplicated list of μGraphs with statistics (docs/design.md §5, §6).
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ugs/cost/cost.h"
#include "ugs/cost/gpu.h"
#include "ugs/eval/backend.h"
#include "ugs/eval/field_kind.h"
#include "ugs/expr/oracle.h"
#include "ugs/search/cost_bound.h"
#include "ugs/search/generator/config.h"
#include "ugs/search/engine.h"

namespace ugs {

class Comm;
class CheckpointStore;

enum class Strategy { Dfs, DfsStatic, DfsOmp, DfsMpi, Bfs };
std::optional<Strategy> strategy_from_name(std::string_view s);
std::string_view name_of(Strategy s);

// bfs: which children of a level count as one state (docs/design.md §5). Structural drops equal canonical
// forms (the dfs result set exactly); function merges kernel-level states whose tensors have equal
// shapes and fingerprints, keeping the cheapest (the same best cost as dfs, far fewer states).
enum class Dedup { Structural, Function };
std::optional<Dedup> dedup_from_name(std::string_view s);
std::string_view name_of(Dedup d);

struct RunOptions {
  Strategy strategy = Strategy::Dfs;
  int threads = 1;
  FieldKind field = FieldKind::Wide;
  BackendKind backend = BackendKind::Auto;  // fingerprints; run_search reports the one it got
  uint64_t seed = 1;
  double time_limit_s = 0;  // 0: none
  // Raised by the caller (another thread) to stop the run as the time limit does: partial results
  // and, for bfs, a checkpoint to resume from. Null: only the time limit stops it.
  std::atomic<bool>* stop = nullptr;
  bool progress = false;    // a progress line on stderr
  std::string cost_gpu = "h100";  // the cost model's GPU, which orders the results
  // What the run keeps (cost_bound.h): every μGraph, or (best) the best and those that cost at most
  // `within` times it, every state that cannot beat that cut.
  Objective objective = Objective::All;
  double within = 1;
  // bfs only:
  Dedup dedup = Dedup::Structural;
  int64_t memory_limit_mib = 0;  // frontier bytes; 0: none. Past it, levels are searched in chunks
  CheckpointStore* checkpoints = nullptr;  // a checkpoint after every level; null: none
  // The share of the run's time the level checkpoints may take: past it a level's checkpoint is
  // skipped (a resume then redoes more), never the last one. 1 (or more): every level.
  double checkpoint_share = 0.1;
  bool resume = false;                     // continue from the last checkpoint there
  // The ranks of a distributed run (dfs-mpi; bfs under mpirun), or null: one process. Each rank calls
  // run_search; rank 0's result holds every rank's μGraphs and statistics.
  Comm* comm = nullptr;
};

// bfs: one row per depth (with chunking, summed over the chunks of that depth).
struct LevelStats {
  int level = 0;
  uint64_t frontier = 0;    // states expanded at this depth
  uint64_t candidates = 0;  // steps the generator offered
  uint64_t survivors = 0;   // children kept for the next depth
  uint64_t bytes = 0;       // with ranks: bytes the ranks sent each other (children, z3 queries), summed
  uint64_t verified = 0;    // μGraphs confirmed among its states' completions
  double wall_s = 0;        // time spent on it (with ranks: the slowest rank's)
  // The bulk test: its states' completions fingerprinted, in how many backend calls (batched: one
  // per call of the fingerprint feed; otherwise one per completion).
  uint64_t fingerprints = 0, fingerprint_calls = 0;
};

// One rank of a distributed search (results stats.ranks).
struct RankStats {
  int rank = 0;
  uint64_t states = 0;  // states it expanded
  uint64_t items = 0;   // dfs-mpi: middle states it searched; bfs: states routed to it
  double busy_s = 0;    // its threads' busy time, summed
  double wall_s = 0;
  uint64_t bytes_sent = 0, bytes_received = 0;
  uint64_t z3_calls = 0;
  double peak_rss_mib = 0;
};

struct FoundGraph {
  KernelGraph graph;
  uint64_t hash = 0;
  Cost cost;
  double found_s = 0;  // seconds into the run when it was first confirmed
};

// bfs: thread-seconds its threads spent waiting, by where (results stats.idle_s). In a parallel region
// (named by the phase it belongs to) a thread waits from the region's start until it enters the body
// and from its last item to the region's end. `fingerprint` is the wait for the feed's calls on the
// completions a batch finishes (those of the batch before it, or at a level's end all of them), every
// thread waiting (for a device; the CPU backend's calls run on the run's threads, so there it is their
// time in those calls). `serial` is the rest of the run's wall, where one thread works on the glue
// (the batch's bookkeeping, oracle calls, confirmations, checkpoints) and the others wait. A resumed
// run counts only its own waiting, not that of the run its checkpoint came from.
struct IdleTimes {
  double expand = 0, deferred = 0, confirm = 0, dedup = 0, keep = 0, route = 0;
  double fingerprint = 0, serial = 0;
};

struct SearchResult {
  std::vector<FoundGraph> mugraphs;  // best first by the cost model, then by hash; no duplicates
  Counters totals;
  std::vector<Counters> workers;  // per thread (dfs-static: the dealt phase; the serial phase is in totals)
  expr::OracleStats expr;
  uint64_t duplicates = 0;  // results found more than once (a generator bug if ever non-zero)
  uint64_t middle_states = 0;  // dfs-static: states dealt to the threads
  // The closing lookahead (closing_memo.h) of this process, summed over ranks (each has its own
  // memo); its states are not in totals.states. A resumed run counts only its own.
  Generator::LookaheadStats lookahead;
  double wall_s = 0, peak_rss_mib = 0;
  // When the first μGraph was confirmed, and the best one (the first of `mugraphs`), in seconds into
  // the run; -1 without μGraphs. A resumed run dates what its checkpoint brought at the checkpoint.
  // With --objective best the first may be one the list no longer holds (it was beaten).
  double time_to_first_s = -1, time_to_best_s = -1;
  bool partial = false;  // stopped by the time limit
  BackendKind backend = BackendKind::Cpu;  // the fingerprint backend that ran
  std::string device;                      // and the device it ran on (empty: the CPU)
  std::vector<LevelStats> levels;          // bfs
  IdleTimes idle;                          // bfs
  double peak_frontier_mib = 0;            // bfs: the most the frontier held at once
  uint64_t chunks = 0;                     // bfs: batches the memory limit split levels into
  // bfs: states with completions that a batch left to the next batch of their level, which confirmed
  // and expanded them while the device fingerprinted its own (pipelining). A resumed run counts its own.
  uint64_t carried = 0;
  // bfs with checkpoints: those written and those skipped for the share, and the seconds written.
  uint64_t checkpoints_written = 0, checkpoints_skipped = 0;
  double checkpoint_s = 0;
  int ranks = 1;
  uint64_t items = 0;                      // this rank's RankStats::items
  std::vector<RankStats> rank_stats;       // rank 0, with ranks: one per rank
};

// `cfg` must be resolved against `program`.
SearchResult run_search(const KernelGraph& program, const SearchConfig& cfg, const RunOptions& opt);

}  // namespace ugs
