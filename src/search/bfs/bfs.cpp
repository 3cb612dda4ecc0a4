// The breadth-first driver: the levels of the tree of states, the choice of what to expand next under
// the memory limit, checkpoints and resuming.
#include <algorithm>
#include <utility>

#include "search/bfs/bfs_impl.h"
#include "search/distributed/state_wire.h"
#include "ugs/util/error.h"

namespace ugs::search_detail {

Bfs::Bfs(const Engine& e, const SearchConfig& cfg, const RunOptions& opt, std::string run_key,
         std::deque<Worker>& workers, Worker& collector, SearchResult& r, LevelProgress& progress)
    : e_(e), cfg_(cfg), opt_(opt), run_key_(std::move(run_key)), workers_(workers), collector_(collector), r_(r),
      progress_(progress),
      threads_(static_cast<int>(workers.size())),
      batched_(cfg.bfs_batch_verify < 0 ? e.verifier.backend().wants_batches() : cfg.bfs_batch_verify == 1),
      pipelined_(batched_ && opt.memory_limit_mib <= 0 && !(opt.comm && opt.comm->size() > 1)),
      scratch_(workers.size()) {
  region_busy_.resize(workers.size());
  if (opt.comm && opt.comm->size() > 1) ranks_ = opt.comm;
  for (ThreadScratch& s : scratch_) s.fingerprints = e.verifier.backend().make_context();
  if (batched_) feed_ = std::make_unique<FingerprintFeed>(e.verifier.backend(), cut_flag(), threads_);
}

// The root is the tree's one base; its key is its encoding's, the same on every rank.
void Bfs::start(const State& root) {
  levels_.assign(1, Level{});
  current_ = 0;
  if (ranks_ && ranks_->rank() != 0) return;  // with ranks, rank 0 holds the root
  Frontier f;
  f.push(root);
  NodeSlab slab;
  slab.push_base(f.state_bytes(0), f.bytes_of(0), structural_key(f.state_bytes(0)));
  levels_[0].add(std::move(slab));
}

// A checkpoint's states carry expression ids of the pool that wrote them: each is recomputed in this
// run's pool from the state's graph, and the state becomes a base of its level.
void Bfs::resume() {
  Checkpoint c = load();
  levels_.assign(c.layers.size(), Level{});
  State s;
  for (size_t d = 0; d < c.layers.size(); ++d) {
    NodeSlab slab;
    Frontier layer, fresh;
    layer.assign(std::move(c.layers[d].states), c.layers[d].count);
    for (size_t i = 0; i < layer.size(); ++i) {
      layer.decode_at(i, s);
      rebuild_expressions(s, e_.gen.pool());
      fresh.clear();
      fresh.push(s);
      if (slab.full()) levels_[d].add(std::exchange(slab, NodeSlab{}));
      slab.push_base(fresh.state_bytes(0), fresh.bytes_of(0), c.layers[d].keys[i]);
    }
    levels_[d].add(std::move(slab));
  }
  current_ = c.current;
  collector_.c = c.counters;
  for (size_t t = 0; t < c.workers.size(); ++t) (t < workers_.size() ? workers_[t].c : collector_.c) += c.workers[t];
  collector_.found = std::move(c.found);
  seen_.insert(c.seen.begin(), c.seen.end());
  r_.levels = std::move(c.levels);
  r_.expr = c.expr;
  r_.wall_s = c.wall_s;
  r_.peak_frontier_mib = c.peak_frontier_mib;
  r_.chunks = c.chunks;
}

void Bfs::begin_region() {
  std::fill(region_busy_.begin(), region_busy_.end(), 0.0);
  region_start_ = Clock::now();
}

void Bfs::busy_since(int t, Clock::time_point t0) {
  const double s = seconds_since(t0);
  workers_[t].c.busy_s += s;
  region_busy_[t] = s;
}

void Bfs::end_region(Region where) {
  const double wall = seconds_since(region_start_);
  regions_s_ += wall;
  double busy = 0;
  for (double b : region_busy_) busy += b;
  r_.idle.*where += std::max(0.0, threads_ * wall - busy);
}

NodeSlab Bfs::take_slab() {
  NodeSlab s;
  {
    std::lock_guard<std::mutex> l(spare_lock_);
    if (!spare_.empty()) {
      s = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  s.clear();
  return s;
}

void Bfs::ready_next_slab(int t) {
  ThreadScratch& s = scratch_[t];
  if (s.next.nodes.capacity() == 0 && s.open.nodes.size() > NodeSlab::kNodes / 2) {
    s.next = take_slab();
    s.next.nodes.reserve(NodeSlab::kNodes);
  }
}

// A thread's first slab of a level grows as it fills (a small level costs little); one that follows a
// full one is sized whole at once (readied ahead, usually), so a big level's slabs are never copied
// as they grow.
NodeSlab& Bfs::room_in_open(ThreadScratch& s) {
  if (s.open.full()) {
    s.open.seal();
    s.full.push_back(std::exchange(s.open, s.next.nodes.capacity() ? std::exchange(s.next, NodeSlab{}) : take_slab()));
    s.open.nodes.reserve(NodeSlab::kNodes);
  }
  return s.open;
}

void Bfs::keep_node(ThreadScratch& s, const Node& n, std::span<const Step> openings) {
  NodeSlab& open = room_in_open(s);
  const size_t opened = open.openings.size();
  open.push_copy(n, openings);
  ++s.kept;
  s.kept_bytes += sizeof(Node) + (open.openings.size() - opened) * sizeof(Step);
}

void Bfs::keep_base(ThreadScratch& s, const uint8_t* state, size_t bytes, uint64_t key) {
  room_in_open(s).push_base(state, bytes, key);
  ++s.kept;
  s.kept_bytes += sizeof(Node) + bytes + sizeof(uint64_t);
}

void Bfs::join_full() {
  for (ThreadScratch& s : scratch_) {
    for (NodeSlab& f : s.full) levels_[open_depth_].add(std::move(f));
    s.full.clear();
  }
}

void Bfs::flush() {
  if (open_depth_ < 0) return;
  join_full();
  for (ThreadScratch& s : scratch_)
    if (!s.open.empty()) {
      s.open.seal();
      levels_[open_depth_].add(std::exchange(s.open, NodeSlab{}));
    }
  open_depth_ = -1;
}

// A whole batch, or under a memory limit as many states as the room left holds children for (by the
// children's bytes per state so far), at least kMinBatch: the frontier passes the limit by at most
// about the children of kMinBatch states.
size_t Bfs::batch_size() const {
  const size_t n = std::min<size_t>(levels_[current_].pending(), cfg_.bfs_batch);
  if (opt_.memory_limit_mib <= 0) return n;
  const double per_state = expanded_ ? double(children_bytes_) / double(expanded_) : 4096.0;
  // With ranks, the limit is on the whole frontier and every rank expands its share of the room.
  const double room = double(size_t(opt_.memory_limit_mib) << 20) - double(view_.bytes);
  const double share = ranks_ ? ranks_->size() : 1;
  const size_t fit = room > 0 ? static_cast<size_t>(room / per_state / share) : 0;
  return std::min(n, std::max(fit, kMinBatch));
}

size_t Bfs::frontier_bytes() const {
  size_t n = 0;
  for (const Level& l : levels_) n += l.bytes();
  for (const ThreadScratch& s : scratch_) {
    n += s.open.bytes() + s.next.bytes();
    for (const NodeSlab& f : s.full) n += f.bytes();
  }
  return n;
}

// Without a memory limit, a level is finished before the next: each is one level of the search. Past
// the limit, the newest level is expanded first, so the frontier shrinks toward the leaves
// (depth-first over chunks); when a level runs out, the deepest one still holding states is next, and
// the levels below it, all expanded, go. The sizes are those of sync(): with ranks, summed over them,
// so every rank takes the same decision.
bool Bfs::advance() {
  const bool over = opt_.memory_limit_mib > 0 && view_.bytes > (size_t(opt_.memory_limit_mib) << 20);
  auto has = [&](int d) { return view_.sizes[d] > 0; };
  const bool next_has = current_ + 1 < static_cast<int>(levels_.size()) && has(current_ + 1);
  if (next_has && (!has(current_) || over)) {
    if (has(current_)) ++r_.chunks;
    ++current_;
    return true;
  }
  if (has(current_)) return true;
  for (int d = current_ - 1; d >= 0; --d)
    if (has(d)) {
      retreat(d);
      return true;
    }
  return false;
}

void Bfs::retreat(int depth) {
  for (size_t d = depth + 1; d < levels_.size(); ++d) levels_[d].drop_expanded(spare_);  // all expanded
  levels_[depth].drop_expanded(spare_);
  const size_t keep = kSparePerThread * scratch_.size();
  if (spare_.size() > keep) {
    std::nth_element(spare_.begin(), spare_.begin() + keep, spare_.end(),
                     [](const NodeSlab& a, const NodeSlab& b) { return a.bytes() > b.bytes(); });
    spare_.erase(spare_.begin() + keep, spare_.end());
  }
  current_ = depth;
  ++tree_;
}

// The pending states of every level (and the states carried to the next batch, not yet finished),
// encoded whole with their keys (a cursor walks to each), in level order: each thread takes a fixed
// range, so the file is the same whatever the timing.
std::vector<CheckpointLayer> Bfs::materialize() {
  std::vector<CheckpointLayer> out(levels_.size());
  std::vector<NodeId> ids;
  std::vector<Frontier> parts(threads_);
  std::vector<std::vector<uint64_t>> part_keys(threads_);
  for (size_t d = 0; d < levels_.size(); ++d) {
    levels_[d].pending_ids(ids);
    if (static_cast<int>(d) == current_) ids.insert(ids.end(), carry_.begin(), carry_.end());
    FirstException failure;
#pragma omp parallel num_threads(threads_)
    failure.capture([&] {
      const int t = omp_get_thread_num();
      parts[t].clear();
      part_keys[t].clear();
      Cursor& cursor = scratch_[t].cursor;
      for (size_t i = ids.size() * t / threads_; i < ids.size() * (t + 1) / threads_; ++i) {
        cursor.move_to(levels_, static_cast<int>(d), ids[i], e_.gen, tree_);
        parts[t].push(cursor.state());
        part_keys[t].push_back(cursor.key());
      }
    });
    failure.rethrow();
    Frontier layer;
    for (int t = 0; t < threads_; ++t) {
      layer.take(parts[t]);
      out[d].keys.insert(out[d].keys.end(), part_keys[t].begin(), part_keys[t].end());
    }
    out[d].count = layer.size();
    out[d].states = layer.release();
  }
  return out;
}

Bfs::Committed Bfs::committed() const {
  Committed c;
  c.collector = collector_.c;
  for (const Worker& w : workers_) {
    c.workers.push_back(w.c);
    c.found.push_back(w.found.size());
  }
  c.levels = r_.levels;
  c.expr = e_.oracle.stats();
  return c;
}

void Bfs::save(bool complete) {
  if (!opt_.checkpoints) return;
  flush();
  const Committed done = cut_ ? before_batch_ : committed();
  Checkpoint c;
  c.run_key = run_key_;
  c.current = current_;
  c.layers = materialize();
  c.counters = done.collector;
  c.workers = done.workers;
  c.levels = done.levels;
  c.found = collector_.found;  // what a resumed checkpoint brought: a batch adds nothing there
  for (size_t t = 0; t < workers_.size(); ++t)
    c.found.insert(c.found.end(), workers_[t].found.begin(), workers_[t].found.begin() + done.found[t]);
  c.seen.assign(seen_.begin(), seen_.end());
  std::sort(c.seen.begin(), c.seen.end());
  c.expr = r_.expr;
  c.expr += done.expr;
  c.wall_s = r_.wall_s + seconds_since(t0_);
  c.peak_frontier_mib = r_.peak_frontier_mib;
  c.chunks = r_.chunks;
  c.complete = complete;
  store(c);
}

void Bfs::run() {
  int last = current_;
  while (true) {
    if (levels_[current_].pending() == 0) flush();  // so that advance() sees every child
    if (!sync() || !advance()) break;
    if (current_ == open_depth_) flush();  // before the level is read
    if (current_ != last) save(false);     // a level (or a chunk of one) is done
    last = current_;
    Level& level = levels_[current_];
    progress_.level.store(current_);
    progress_.frontier.store(level.pending());
    batch_.clear();
    level.peek_back(batch_size(), batch_);
    if (levels_.size() < static_cast<size_t>(current_) + 2) levels_.resize(current_ + 2);
    if (!expand(current_)) break;  // the children go to the next level; cut short, the batch stays pending
    r_.peak_frontier_mib = std::max(r_.peak_frontier_mib, double(frontier_bytes()) / (1 << 20));
    levels_[current_].drop_back(own_);
  }
  flush();
  save(!e_.stop.load());
  r_.idle.fingerprint += threads_ * feed_wait_s_;
  r_.idle.serial += (threads_ - 1) * std::max(0.0, seconds_since(t0_) - regions_s_ - feed_wait_s_);
}

void run_bfs(const Engine& e, const SearchConfig& cfg, const RunOptions& opt, const std::string& run_key,
             const State& root, std::deque<Worker>& workers, Worker& collector, SearchResult& r,
             LevelProgress& progress) {
  Bfs bfs(e, cfg, opt, run_key, workers, collector, r, progress);
  if (opt.resume)
    bfs.resume();
  else
    bfs.start(root);
  bfs.run();
}

}  // namespace ugs::search_detail
