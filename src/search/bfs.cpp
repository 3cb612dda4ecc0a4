// The breadth-first driver: the layers of unexpanded states, the choice of what to expand next under
// the memory limit, checkpoints and resuming.
#include <algorithm>
#include <utility>

#include "bfs_impl.h"
#include "state_wire.h"
#include "ugs/util/error.h"

namespace ugs::search_detail {

Bfs::Bfs(const Engine& e, const SearchConfig& cfg, const RunOptions& opt, std::string run_key,
         std::deque<Worker>& workers, Worker& collector, SearchResult& r, LevelProgress& progress)
    : e_(e), cfg_(cfg), opt_(opt), run_key_(std::move(run_key)), workers_(workers), collector_(collector), r_(r),
      progress_(progress),
      threads_(static_cast<int>(workers.size())),
      batched_(cfg.bfs_batch_verify < 0 ? e.verifier.backend().wants_batches() : cfg.bfs_batch_verify == 1),
      scratch_(workers.size()) {
  if (opt.comm && opt.comm->size() > 1) ranks_ = opt.comm;
}

void Bfs::start(const State& root) {
  Frontier f;
  f.push(root);
  layers_.assign(1, Layer{});
  if (!ranks_ || ranks_->rank() == 0) layers_[0].add(std::move(f));  // with ranks, rank 0 holds the root
  current_ = 0;
}

// A checkpoint's states carry expression ids of the pool that wrote them: each is recomputed in this
// run's pool from the state's graph.
void Bfs::rebuild_expressions(Layer& l) const {
  Frontier fresh;
  State s;
  for (const Frontier& f : l.segments())
    for (size_t i = 0; i < f.size(); ++i) {
      f.decode_at(i, s);
      search_detail::rebuild_expressions(s, e_.gen.pool());
      fresh.push(s);
    }
  l = Layer{};
  l.add(std::move(fresh));
}

void Bfs::resume() {
  Checkpoint c = load();
  if (c.run_key != run_key_)
    throw InputError(checkpoint_path(opt_.checkpoint_dir) +
                     ": written by another search (program, config, field, seed or dedup differ); resume with the "
                     "arguments of the run that wrote it");
  layers_ = std::move(c.layers);
  for (Layer& l : layers_) rebuild_expressions(l);
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

Frontier Bfs::take_slab() {
  std::lock_guard<std::mutex> l(spare_lock_);
  if (spare_.empty()) {
    Frontier f;
    f.make_slab();
    return f;
  }
  Frontier f = std::move(spare_.back());
  spare_.pop_back();
  f.clear();
  f.make_slab();  // a spent segment may be the root's or a checkpoint's, not a slab
  return f;
}

void Bfs::keep_child(ThreadScratch& s, const uint8_t* state, size_t bytes) {
  if (!s.open.fits(bytes)) {
    if (!s.open.empty()) s.full.push_back(std::move(s.open));
    s.open = take_slab();
  }
  s.open.push_bytes(state, bytes);
  ++s.kept;
  s.kept_bytes += bytes;
}

void Bfs::join_full() {
  for (ThreadScratch& s : scratch_) {
    for (Frontier& f : s.full) layers_[open_depth_].add(std::move(f));
    s.full.clear();
  }
}

void Bfs::flush() {
  if (open_depth_ < 0) return;
  join_full();
  for (ThreadScratch& s : scratch_)
    if (!s.open.empty()) layers_[open_depth_].add(std::exchange(s.open, Frontier{}));
  open_depth_ = -1;
}

// A whole batch, or under a memory limit as many states as the room left holds children for (by the
// children's bytes per state so far), at least kMinBatch: the frontier passes the limit by at most
// about the children of kMinBatch states.
size_t Bfs::batch_size() const {
  const size_t n = std::min<size_t>(layers_[current_].size(), cfg_.bfs_batch);
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
  for (const Layer& l : layers_) n += l.bytes();
  for (const ThreadScratch& s : scratch_) n += s.open.bytes();
  return n;
}

// Without a memory limit, a layer is finished before the next: each is one level. Past the limit,
// the newest layer is expanded first, so the frontier shrinks toward the leaves (depth-first over
// chunks); when a layer runs out, the deepest one still holding states is next. The sizes are those
// of sync(): with ranks, summed over them, so every rank takes the same decision.
bool Bfs::advance() {
  const bool over = opt_.memory_limit_mib > 0 && view_.bytes > (size_t(opt_.memory_limit_mib) << 20);
  auto has = [&](int d) { return view_.sizes[d] > 0; };
  const bool next_has = current_ + 1 < static_cast<int>(layers_.size()) && has(current_ + 1);
  if (next_has && (!has(current_) || over)) {
    if (has(current_)) ++r_.chunks;
    ++current_;
    return true;
  }
  if (has(current_)) return true;
  for (int d = current_ - 1; d >= 0; --d)
    if (has(d)) {
      current_ = d;
      return true;
    }
  return false;
}

void Bfs::save(bool complete) {
  if (opt_.checkpoint_dir.empty()) return;
  flush();
  Checkpoint c;
  c.run_key = run_key_;
  c.current = current_;
  c.layers = layers_;
  c.counters = collector_.c;
  for (const Worker& w : workers_) c.workers.push_back(w.c);
  c.levels = r_.levels;
  c.found = collector_.found;
  for (const Worker& w : workers_) c.found.insert(c.found.end(), w.found.begin(), w.found.end());
  c.seen.assign(seen_.begin(), seen_.end());
  std::sort(c.seen.begin(), c.seen.end());
  c.expr = r_.expr;
  c.expr += e_.oracle.stats();
  c.wall_s = r_.wall_s + seconds_since(t0_);
  c.peak_frontier_mib = r_.peak_frontier_mib;
  c.chunks = r_.chunks;
  c.complete = complete;
  store(c);
}

void Bfs::run() {
  int last = current_;
  while (true) {
    if (layers_[current_].size() == 0) flush();  // so that advance() sees every child
    if (!sync() || !advance()) break;
    if (current_ == open_depth_) flush();  // before the layer is read
    if (current_ != last) save(false);     // a level (or a chunk of one) is done
    last = current_;
    Layer& layer = layers_[current_];
    progress_.level.store(current_);
    progress_.frontier.store(layer.size());
    batch_.clear();
    layer.peek_back(batch_size(), batch_);
    if (layers_.size() < static_cast<size_t>(current_) + 2) layers_.resize(current_ + 2);
    expand(current_);  // decodes the batch first; the children go to the next layer
    r_.peak_frontier_mib = std::max(r_.peak_frontier_mib, double(frontier_bytes()) / (1 << 20));
    layers_[current_].drop_back(batch_.size(), spare_);
  }
  flush();
  save(!e_.stop.load());
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
