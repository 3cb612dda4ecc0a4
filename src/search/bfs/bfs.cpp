// The breadth-first driver: the loop over batches, and the checkpoints (bfs.h tells the design).
#include "search/bfs/bfs.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <numeric>
#include <utility>

#include "search/bfs/completions.h"
#include "search/bfs/cursor.h"
#include "search/bfs/dedup.h"
#include "search/bfs/expander.h"
#include "search/bfs/level_store.h"
#include "search/bfs/rank_exchange.h"
#include "search/bfs/schedule.h"
#include "search/bfs/state_check.h"
#include "search/bfs/team.h"
#include "search/distributed/state_wire.h"
#include "ugs/search/bfs/checkpoint.h"
#include "ugs/util/error.h"
#include "ugs/util/first_exception.h"

namespace ugs::search_detail {

namespace {

// The pending states of every level (and the states carried to the next batch, not yet finished), as a
// checkpoint's source: a cursor walks to each, and each is encoded whole with its key, in rounds of
// a fixed number of states per thread, so that the file is the same whatever the timing. The round's
// buffers are kept from one checkpoint to the next: writing one holds a round in memory, and faults
// no page in after the first.
class PendingStates final : public CheckpointSource {
 public:
  PendingStates(const LevelStore& store, const Generator& gen, Team& team)
      : store_(store), gen_(gen), team_(team), parts_(team.size()) {}
  // For the next checkpoint: the depth being expanded, and the states carried into its next batch.
  void prepare(int current, const std::vector<NodeId>& carried) {
    current_ = current;
    carried_ = &carried;
  }
  size_t depths() const override { return store_.depths(); }
  void layer(size_t depth, const Chunk& chunk) override;
  uint64_t written() const { return written_; }  // the states of every checkpoint so far

 private:
  static constexpr size_t kRound = size_t{1} << 15;  // states per thread
  struct Part {
    Cursor cursor;
    Frontier states;
    std::vector<uint64_t> keys;
  };
  const LevelStore& store_;
  const Generator& gen_;
  Team& team_;
  std::vector<Part> parts_;  // per thread
  std::vector<NodeId> ids_;
  int current_ = 0;
  const std::vector<NodeId>* carried_ = nullptr;
  uint64_t written_ = 0;
};

void PendingStates::layer(size_t depth, const Chunk& chunk) {
  store_.level(static_cast<int>(depth)).pending_ids(ids_);
  if (static_cast<int>(depth) == current_) ids_.insert(ids_.end(), carried_->begin(), carried_->end());
  written_ += ids_.size();
  const size_t threads = parts_.size();
  for (size_t from = 0; from < ids_.size(); from += kRound * threads) {
    const size_t round = std::min(ids_.size() - from, kRound * threads);
    team_.each_thread(nullptr, [&](int t) {
      Part& part = parts_[t];
      part.states.clear();
      part.keys.clear();
      for (size_t i = from + round * t / threads; i < from + round * (t + 1) / threads; ++i) {
        part.cursor.move_to(store_.levels(), static_cast<int>(depth), ids_[i], gen_, store_.tree());
        part.states.push(part.cursor.state());
        part.keys.push_back(part.cursor.key());
      }
    });
    for (const Part& part : parts_)
      chunk(part.keys.size(), std::span(part.states.data().data(), part.states.data().size()), part.keys);
  }
}

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
  uint64_t pending_states() const;
  void save(bool complete);
  uint64_t verified_count() const;  // μGraphs confirmed so far, over the workers
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
  PendingStates pending_;  // what a checkpoint writes of the frontier
};

Comm* ranks_of(const RunOptions& options) { return options.comm && options.comm->size() > 1 ? options.comm : nullptr; }

// Completions go to the backend in one call per batch when the config says so, or by default when
// the backend prefers; states with completions are carried to the next batch only in one process,
// and under a memory limit only while the next batch stays at the same depth.
bool batched(const SearchConfig& cfg, const Engine& engine) {
  return cfg.bfs_batch_verify < 0 ? engine.verifier.backend().wants_batches() : cfg.bfs_batch_verify == 1;
}

Bfs::Bfs(const Engine& engine, const SearchConfig& cfg, const RunOptions& options, std::string run_key,
         std::deque<Worker>& workers, Worker& collector, SearchResult& result, LevelProgress& progress)
    : engine_(engine), cfg_(cfg), options_(options), run_key_(std::move(run_key)), workers_(workers),
      collector_(collector), result_(result), progress_(progress),
      stop_(ranks_of(options) ? nullptr : &engine.stop),
      team_(workers, result.idle),
      store_(static_cast<int>(workers.size())),
      schedule_(options.memory_limit_mib, static_cast<size_t>(cfg.bfs_batch),
                ranks_of(options) ? options.comm->size() : 1),
      exchange_(ranks_of(options), engine, team_, collector, result),
      completions_(engine, workers, collector, batched(cfg, engine),
                   batched(cfg, engine) && !ranks_of(options), stop_),
      expander_(engine, options.dedup, workers, collector, team_, completions_, stop_),
      dedup_(options.dedup, engine, options.cost_gpu, team_, collector, stop_),
      pending_(store_, engine.gen, team_) {}

// The root is the tree's one base; its key is its encoding's, the same on every rank.
void Bfs::start(const State& root) {
  store_.reset(1);
  schedule_.resume_at(0);
  if (exchange_.rank() != 0) return;  // with ranks, rank 0 holds the root
  Frontier encoded;
  encoded.push(root);
  NodeSlab slab;
  slab.push_base(encoded.state_bytes(0), encoded.bytes_of(0), structural_key(encoded.state_bytes(0)));
  store_.level(0).add(std::move(slab));
}

// A checkpoint's states carry expression ids of the pool that wrote them: each is recomputed in this
// run's pool from the state's graph, and the state becomes a base of its level. The file may be
// damaged: a state is searched from only if it is one the search could have made.
void Bfs::resume() {
  Checkpoint checkpoint = exchange_.load(*options_.checkpoints, run_key_, cfg_.rules());
  store_.reset(checkpoint.layers.size());
  State state;
  for (size_t d = 0; d < checkpoint.layers.size(); ++d) {
    NodeSlab slab;
    Frontier layer, fresh;
    auto damaged = [&](const std::string& what) {
      return InputError("--resume: the checkpoint's level " + std::to_string(d) + " " + what +
                        "; the file is damaged, start the search again without --resume");
    };
    if (!layer.assign(std::move(checkpoint.layers[d].states), checkpoint.layers[d].count))
      throw damaged("does not hold its " + std::to_string(checkpoint.layers[d].count) + " states");
    for (size_t i = 0; i < layer.size(); ++i) {
      layer.decode_at(i, state);
      if (!well_formed(state, cfg_.rules()))
        throw damaged("holds a state no search makes (state " + std::to_string(i) + ")");
      rebuild_expressions(state, engine_.gen.pool());
      fresh.clear();
      fresh.push(state);
      if (slab.full()) store_.level(static_cast<int>(d)).add(std::exchange(slab, NodeSlab{}));
      slab.push_base(fresh.state_bytes(0), fresh.bytes_of(0), checkpoint.layers[d].keys[i]);
    }
    store_.level(static_cast<int>(d)).add(std::move(slab));
  }
  schedule_.resume_at(checkpoint.current);
  collector_.counters = checkpoint.counters;
  for (size_t t = 0; t < checkpoint.workers.size(); ++t)
    (t < workers_.size() ? workers_[t].counters : collector_.counters) += checkpoint.workers[t];
  collector_.found = std::move(checkpoint.found);
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
    if (!exchange_.sync(store_, view_) || !schedule_.advance(view_, store_, result_.chunks, holding)) break;
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
    store_.level(depth).drop_back(expander_.batch().own);
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
  if (result_.levels.size() <= static_cast<size_t>(depth)) result_.levels.resize(depth + 1);
  LevelStats& stats = result_.levels[depth];
  stats.level = depth;
  expander_.begin(store_, depth, states, carried_, drain);
  const Batch& batch = expander_.batch();
  if (!cut()) expander_.expand_chunks(store_);
  if (!cut()) completions_.verify(batch, team_);
  if (!cut()) expander_.expand_deferred(store_);
  if (!cut()) expander_.settle_misses(store_, exchange_);
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
  stats.wall_s += seconds_since(start);
  return !cut_;
}

// The children deduplicated, those other ranks own sent to them, the rest kept in the threads' open
// slabs of depth + 1, and those other ranks sent here.
void Bfs::keep_children(int depth) {
  Batch& batch = expander_.batch();
  dedup_.run(batch);
  uint64_t routed_bytes = 0;
  const uint64_t routed = exchange_.route_out(batch, store_, depth, &routed_bytes);

  const auto start = Clock::now();
  store_.open(depth + 1);
  store_.reset_kept();
  expander_.keep_children(store_);
  const uint64_t survivors = routed + store_.kept();
  schedule_.count(0, routed_bytes + store_.kept_bytes());
  collector_.counters.phase_s.expand += seconds_since(start);
  exchange_.route_in(batch, store_);
  store_.join_full();
  result_.levels[depth].survivors += survivors;
}

uint64_t Bfs::pending_states() const {
  std::vector<uint64_t> sizes;
  store_.pending_sizes(sizes);
  return std::accumulate(sizes.begin(), sizes.end(), uint64_t{0});
}

uint64_t Bfs::verified_count() const {
  uint64_t n = collector_.counters.verified;
  for (const Worker& w : workers_) n += w.counters.verified;
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
// costs in proportion to the pending states, every level: a level's is skipped when, at the seconds
// per state the checkpoints so far took, it would take them past their share of the run's time. With
// ranks, every rank writes one or none: each must reach the commit's collective.
void Bfs::level_done() {
  if (!options_.checkpoints) return;
  const double per_state = pending_.written() > 0 ? result_.checkpoint_s / double(pending_.written()) : 0;
  const double predicted = per_state * double(pending_states());
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
  pending_.prepare(schedule_.current(), carried_);
  exchange_.store(*options_.checkpoints, checkpoint, pending_);
  ++result_.checkpoints_written;
  result_.checkpoint_s += seconds_since(start);
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
