// The breadth-first driver: the loop over batches, and the checkpoints (bfs.h tells the design).
#include "search/bfs/bfs.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <utility>

#include "search/bfs/completions.h"
#include "search/bfs/cursor.h"
#include "search/bfs/dedup.h"
#include "search/bfs/expander.h"
#include "search/bfs/level_store.h"
#include "search/bfs/rank_exchange.h"
#include "search/bfs/schedule.h"
#include "search/bfs/team.h"
#include "search/bfs/tree_checkpoint.h"
#include "ugs/search/bfs/checkpoint.h"
#include "ugs/util/error.h"
#include "ugs/util/first_exception.h"

namespace ugs::search_detail {

namespace {

class Bfs {
 public:
  Bfs(const Engine& engine, const SearchConfig& cfg, const RunOptions& options, std::string run_key,
      std::deque<Worker>& workers, Worker& collector, SearchResult& result, LevelProgress& progress);
  void start(const State& root);
  void resume();
  void run();

 private:
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
  Committed committed() const;
  // In one process the stop (the time limit) is obeyed inside a batch, between states and between
  // a confirmation's tests: a full-size level can be one batch of minutes, and one CPU confirmation
  // of a full-size μGraph seconds. With ranks a batch runs to its end, as every rank must reach the
  // batch's collectives.
  bool cut() const { return raised(stop_); }
  // One batch; false: the stop cut it short (it stays pending). `drain`: it carries no states on.
  bool expand(int depth, size_t states, bool drain);
  void keep_children(int depth);
  void level_done();  // a checkpoint, within the run's share for them
  void save(bool complete);
  uint64_t verified_count() const;  // μGraphs confirmed so far, over the workers
  uint64_t fingerprint_count() const;  // completions fingerprinted so far, over the workers
  uint64_t states_count() const;    // states visited so far, over the workers

  const Engine& engine_;
  const SearchConfig& cfg_;
  const RunOptions& options_;
  const std::string run_key_;
  std::deque<Worker>& workers_;
  Worker& collector_;
  SearchResult& result_;
  LevelProgress& progress_;
  const Clock::time_point start_time_ = Clock::now();
  const std::atomic<bool>* stop_;  // what cut() reads: null with ranks

  Team team_;
  LevelStore store_;
  Schedule schedule_;
  RankExchange exchange_;
  Completions completions_;
  Expander expander_;
  Deduplicator dedup_;
  FrontierView view_;
  std::vector<NodeId> carried_;  // the states carried into the next batch (or the running one)
  Committed before_batch_;
  bool cut_ = false;  // the last batch was cut short: the checkpoint holds before_batch_
  double fastest_checkpoint_s_ = 0;  // this run's quickest checkpoint: what each costs but its nodes
  TreeSource tree_source_;  // what a checkpoint writes of the frontier
};

Comm* ranks_of(const RunOptions& options) { return options.comm && options.comm->size() > 1 ? options.comm : nullptr; }

bool keyed(const RunOptions& options) { return Deduplicator::keyed(options.dedup, ranks_of(options) != nullptr); }

// Completions go to the backend in one call per batch when the config says so, or by default when
// the backend prefers; states with completions are carried to the next batch only in one process,
// and under a memory limit only while the next batch stays at the same depth.
bool batched(const SearchConfig& cfg, const Engine& engine) {
  return cfg.bfs_batch_verify < 0 ? engine.verifier.backend().wants_batches() : cfg.bfs_batch_verify == 1;
}

// Under --objective best the bound cuts by the cheapest μGraph confirmed so far: the sooner the cheap
// ones of each subtree are confirmed, the more it cuts, so the dive does not end at the first.
Schedule::Order schedule_order(const SearchConfig& cfg, const Engine& engine) {
  if (cfg.bfs_probe != 1) return Schedule::Order::Levels;
  return engine.bound.active() ? Schedule::Order::DiveThroughout : Schedule::Order::DiveToFirst;
}

Bfs::Bfs(const Engine& engine, const SearchConfig& cfg, const RunOptions& options, std::string run_key,
         std::deque<Worker>& workers, Worker& collector, SearchResult& result, LevelProgress& progress)
    : engine_(engine), cfg_(cfg), options_(options), run_key_(std::move(run_key)), workers_(workers),
      collector_(collector), result_(result), progress_(progress),
      stop_(ranks_of(options) ? nullptr : &engine.stop),
      team_(workers, result.idle),
      store_(static_cast<int>(workers.size())),
      schedule_(options.memory_limit_mib, static_cast<size_t>(cfg.bfs_batch),
                ranks_of(options) ? options.comm->size() : 1, schedule_order(cfg, engine)),
      exchange_(ranks_of(options), engine, team_, collector, result),
      completions_(engine, workers, collector, batched(cfg, engine),
                   batched(cfg, engine) && !ranks_of(options), stop_),
      expander_(engine, options.dedup, keyed(options), workers, collector, team_, completions_, stop_),
      dedup_(options.dedup, keyed(options), engine, options.cost_gpu, team_, collector, stop_),
      tree_source_(store_, engine.gen, team_) {}

// The root is the tree's one base; its key is its encoding's, the same on every rank.
void Bfs::start(const State& root) {
  store_.reset(1);
  if (exchange_.rank() != 0) return;  // with ranks, rank 0 holds the root
  Frontier encoded;
  encoded.push(root);
  NodeSlab slab;
  slab.push_base(encoded.state_bytes(0), encoded.bytes_of(0), structural_key(encoded.state_bytes(0)));
  store_.level(0).add(std::move(slab));
}

// The checkpoint's tree becomes the levels again (tree_checkpoint.h), every step checked against its
// parent state and its expression recomputed in this run's pool: the file may be damaged, and a node
// is searched from only if its step applies where it stands.
void Bfs::resume() {
  Checkpoint checkpoint = exchange_.load(*options_.checkpoints, run_key_, cfg_.rules());
  tree_source_.resumed(restore_tree(checkpoint, *options_.checkpoints, exchange_.rank(), store_, engine_.gen,
                                    cfg_.rules(), team_));
  schedule_.resume_at(checkpoint.current);
  collector_.counters = checkpoint.counters;
  for (size_t t = 0; t < checkpoint.workers.size(); ++t)
    (t < workers_.size() ? workers_[t].counters : collector_.counters) += checkpoint.workers[t];
  collector_.found = std::move(checkpoint.found);
  for (const KernelGraph& found : collector_.found) engine_.bound.offer(found);
  dedup_.restore(checkpoint.seen);
  result_.levels = std::move(checkpoint.levels);
  result_.expr = checkpoint.expr;
  result_.wall_s = checkpoint.wall_s;
  result_.peak_frontier_mib = checkpoint.peak_frontier_mib;
  result_.chunks = checkpoint.chunks;
}

void Bfs::run() {
  int last = schedule_.current();
  while (true) {
    if (store_.level(schedule_.current()).pending() == 0) store_.flush();  // so that advance() sees every child
    // States carried from the last batch are finished at their depth before the schedule leaves it.
    const bool holding = !carried_.empty();
    if (!exchange_.sync(store_, verified_count() > 0, view_) ||
        !schedule_.advance(view_, store_, result_.chunks, holding))
      break;
    const int depth = schedule_.current();
    if (depth == store_.open_depth()) store_.flush();  // before the level is read
    if (depth != last) level_done();                   // a level (or a chunk of one) is done
    last = depth;
    const Level& level = store_.level(depth);
    progress_.level.store(depth);
    progress_.frontier.store(level.pending());
    // Past the limit, a batch holding carried states takes only those, and drains.
    const bool finish_carried = holding && schedule_.over(view_);
    const size_t states = finish_carried ? 0 : schedule_.batch_size(level.pending(), view_);
    const bool drain = finish_carried || schedule_.fills_room(level.pending(), view_);
    store_.reserve_depths(depth + 2);
    if (!expand(depth, states, drain)) break;  // the children go to the next depth; cut short, it stays pending
    result_.peak_frontier_mib = std::max(result_.peak_frontier_mib, double(store_.bytes()) / (1 << 20));
    store_.level(depth).drop_front(expander_.batch().own);
  }
  store_.flush();
  save(!engine_.stop.load());
  const int threads = team_.size();
  result_.idle.fingerprint += threads * completions_.wait_s();
  result_.idle.serial +=
      (threads - 1) * std::max(0.0, seconds_since(start_time_) - team_.regions_s() - completions_.wait_s());
}

bool Bfs::expand(int depth, size_t states, bool drain) {
  const auto start = Clock::now();
  before_batch_ = committed();
  const uint64_t verified_before = verified_count(), states_before = states_count();
  const uint64_t fingerprints_before = fingerprint_count();
  const uint64_t calls_before = completions_.backend_calls(fingerprints_before);
  if (result_.levels.size() <= static_cast<size_t>(depth)) result_.levels.resize(depth + 1);
  LevelStats& stats = result_.levels[depth];
  stats.level = depth;
  expander_.begin(store_, depth, states, carried_, drain);
  const Batch& batch = expander_.batch();
  if (!cut()) expander_.expand_chunks(store_);
  if (!cut()) completions_.verify(batch, team_);
  if (!cut()) expander_.expand_deferred(store_);
  if (!cut()) expander_.settle_misses(exchange_);
  cut_ = cut();  // a phase cut short leaves its outputs incomplete: the children are not kept
  engine_.oracle.add_cache_hits(expander_.cache_hits());
  stats.candidates += expander_.candidates();
  if (!cut_) {
    keep_children(depth);
    completions_.carry(batch, carried_);
    result_.carried += carried_.size();
    // The states whose children were kept: the carried ones count where they finish.
    schedule_.count(batch.size() - carried_.size(), 0);
  }
  stats.frontier += states_count() - states_before;  // those it finished, unless cut short
  stats.verified += verified_count() - verified_before;
  const uint64_t fingerprints = fingerprint_count();
  stats.fingerprints += fingerprints - fingerprints_before;
  stats.fingerprint_calls += completions_.backend_calls(fingerprints) - calls_before;
  stats.wall_s += seconds_since(start);
  return !cut_;
}

// The children deduplicated, those other ranks own sent to them, the rest kept in the threads' open
// slabs of depth + 1, and those other ranks sent here.
void Bfs::keep_children(int depth) {
  Batch& batch = expander_.batch();
  dedup_.run(batch);
  uint64_t routed_bytes = 0;
  const bool spread = exchange_.spreads(view_, depth);
  const uint64_t routed = exchange_.route_out(batch, store_, depth, spread, &routed_bytes);

  const auto start = Clock::now();
  store_.open(depth + 1);
  store_.reset_kept();
  expander_.keep_children(store_);
  const uint64_t survivors = routed + store_.kept();
  schedule_.count(0, routed_bytes + store_.kept_bytes());
  collector_.counters.phase_s.expand += seconds_since(start);
  exchange_.route_in(batch, store_, spread);
  store_.join_full();
  result_.levels[depth].survivors += survivors;
}

uint64_t Bfs::verified_count() const {
  uint64_t n = collector_.counters.verified;
  for (const Worker& w : workers_) n += w.counters.verified;
  return n;
}

uint64_t Bfs::fingerprint_count() const {
  uint64_t n = collector_.counters.fingerprint_evals;
  for (const Worker& w : workers_) n += w.counters.fingerprint_evals;
  return n;
}

uint64_t Bfs::states_count() const {
  uint64_t n = 0;
  for (const Worker& w : workers_) n += w.counters.states;
  return n;
}

Bfs::Committed Bfs::committed() const {
  Committed c;
  c.collector = collector_.counters;
  for (const Worker& w : workers_) {
    c.workers.push_back(w.counters);
    c.found.push_back(w.found.size());
  }
  c.levels = result_.levels;
  c.expr = engine_.oracle.stats();
  return c;
}

// A checkpoint skipped costs only the work a resume redoes from the one before, while writing one
// costs its files' fixed costs (their syncs) and the nodes made since the last: a level's is skipped
// when it would take the checkpoints past their share of the run's time. Its cost is predicted as
// the quickest checkpoint so far (a bound on the fixed part) and, per node, what the others took
// beyond it: a first checkpoint of a few nodes, all fixed cost, does not make every node look dear. With
// ranks, every rank writes one or none: each must reach the commit's collective.
void Bfs::level_done() {
  if (!options_.checkpoints) return;
  const uint64_t written = result_.checkpoints_written;
  const double beyond_fixed = result_.checkpoint_s - double(written) * fastest_checkpoint_s_;
  const double per_node = tree_source_.written() > 0 ? beyond_fixed / double(tree_source_.written()) : 0;
  const double predicted = fastest_checkpoint_s_ + per_node * double(tree_source_.unwritten());
  const bool over = options_.checkpoint_share < 1 &&
                    result_.checkpoint_s + predicted > options_.checkpoint_share * seconds_since(start_time_);
  if (exchange_.any(over)) {
    ++result_.checkpoints_skipped;
    return;
  }
  save(false);
}

void Bfs::save(bool complete) {
  if (!options_.checkpoints) return;
  const auto start = Clock::now();
  store_.flush();
  const Committed done = cut_ ? before_batch_ : committed();
  Checkpoint checkpoint;
  checkpoint.run_key = run_key_;
  checkpoint.current = schedule_.current();
  checkpoint.counters = done.collector;
  checkpoint.workers = done.workers;
  checkpoint.levels = done.levels;
  checkpoint.found = collector_.found;  // what a resumed checkpoint brought: a batch adds nothing there
  for (size_t t = 0; t < workers_.size(); ++t)
    checkpoint.found.insert(checkpoint.found.end(), workers_[t].found.begin(),
                            workers_[t].found.begin() + done.found[t]);
  checkpoint.seen = dedup_.known_functions();
  checkpoint.expr = result_.expr;
  checkpoint.expr += done.expr;
  checkpoint.wall_s = result_.wall_s + seconds_since(start_time_);
  checkpoint.peak_frontier_mib = result_.peak_frontier_mib;
  checkpoint.chunks = result_.chunks;
  checkpoint.complete = complete;
  tree_source_.prepare(schedule_.current(), carried_);
  exchange_.store(*options_.checkpoints, checkpoint, tree_source_);
  const double took = seconds_since(start);
  fastest_checkpoint_s_ = result_.checkpoints_written == 0 ? took : std::min(fastest_checkpoint_s_, took);
  ++result_.checkpoints_written;
  result_.checkpoint_s += took;
}

}  // namespace

void run_bfs(const Engine& engine, const SearchConfig& cfg, const RunOptions& options, const std::string& run_key,
             const State& root, std::deque<Worker>& workers, Worker& collector, SearchResult& result,
             LevelProgress& progress) {
  Bfs bfs(engine, cfg, options, run_key, workers, collector, result, progress);
  if (options.resume)
    bfs.resume();
  else
    bfs.start(root);
  bfs.run();
}

}  // namespace ugs::search_detail
