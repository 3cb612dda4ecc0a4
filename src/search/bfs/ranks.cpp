// The breadth-first search over ranks (bfs under mpirun). The frontier is partitioned by the states'
// structural keys: every rank expands its shard of the current layer, and in every batch:
//   sync       the layers' sizes and bytes summed over ranks (and the stop flags), so every rank takes
//              the same advance() decision: levels, and chunks under --memory-limit, stay in step
//              (a rank whose shard of the layer is empty expands empty batches);
//   share_z3   the batch's queries that neither the cache nor the structural stage answers, gathered
//              from every rank, deduplicated, solved round-robin over the ranks, answers to all;
//   route      each child to the rank that owns its key (all-to-all), encoded whole with its key,
//              where duplicates meet, so structural dedup is global; an arrival gets its expressions
//              rebuilt in this pool and becomes a base of the next level.
// Function dedup stays per rank: a rank keeps the cheapest state of each function it generated, so
// the ranks together keep a superset of the states one process keeps (the same best cost).
// Checkpoints: each rank writes its part of a generation, and rank 0 commits it once all have; a
// resume needs the same number of ranks.
#include <algorithm>
#include <unordered_set>

#include "search/bfs/bfs_impl.h"
#include "search/distributed/expr_wire.h"
#include "search/distributed/state_wire.h"
#include "ugs/util/hash.h"

namespace ugs::search_detail {

namespace {

constexpr size_t kMaxLayers = 128;  // deeper than any config's search (kernel ops plus block steps)

int owner_of(uint64_t key, int ranks) { return static_cast<int>(splitmix64(key) % static_cast<uint64_t>(ranks)); }

}  // namespace

bool Bfs::sync() {
  view_.sizes.assign(levels_.size(), 0);
  for (size_t d = 0; d < levels_.size(); ++d) view_.sizes[d] = levels_[d].pending();
  if (open_depth_ >= 0)  // the threads' open slabs: the level's too, joined before it is read
    for (const ThreadScratch& s : scratch_) {
      view_.sizes[open_depth_] += s.open.nodes.size();
      for (const NodeSlab& f : s.full) view_.sizes[open_depth_] += f.nodes.size();
    }
  view_.bytes = frontier_bytes();
  view_.stop = e_.stop.load(std::memory_order_relaxed);
  if (!ranks_) return !view_.stop;
  if (levels_.size() > kMaxLayers) throw std::logic_error("bfs: more levels than kMaxLayers");
  const auto t0 = Clock::now();
  std::vector<uint64_t> v(2 + kMaxLayers, 0);
  v[0] = view_.stop;
  v[1] = view_.bytes;
  std::copy(view_.sizes.begin(), view_.sizes.end(), v.begin() + 2);
  ranks_->sum(v);
  view_.stop = v[0] != 0;
  view_.bytes = v[1];
  std::copy_n(v.begin() + 2, view_.sizes.size(), view_.sizes.begin());
  sent_before_ = ranks_->bytes_sent();
  collector_.c.phase_s.exchange += seconds_since(t0);
  return !view_.stop;
}

// Each globally distinct query is solved by one rank (z3 counts it there) and learned by all. The
// queries and cache hits of that solving are taken back out of this rank's statistics, and each query
// this rank submitted first moves from its cache hits (where the main batch will count it) to z3, so
// that summed over ranks, queries = cache hits + structural + z3 calls + undecided, with z3 calls the
// distinct queries only z3 could answer, as in one process. The corrections go to r_.expr, which
// run_search and save() add to the oracle's own counts (unsigned: the sum is what must be right).
void Bfs::share_z3(const std::vector<expr::ExprId>& queries) {
  if (!ranks_) return;
  const auto t0 = Clock::now();
  std::vector<expr::ExprId> need(queries);
  std::sort(need.begin(), need.end());
  need.erase(std::unique(need.begin(), need.end()), need.end());
  std::erase_if(need, [&](expr::ExprId q) { return e_.oracle.known_without_z3(q).has_value(); });
  WireWriter w;
  put_exprs(e_.gen.pool(), need, w);
  const std::vector<std::string> lists = ranks_->all_gather(w.take());

  std::vector<expr::ExprId> distinct;  // over all ranks, in order of first submission
  std::unordered_set<expr::ExprId> seen;
  uint64_t first_here = 0;
  for (int r = 0; r < ranks_->size(); ++r) {
    WireReader rd(lists[r]);
    for (expr::ExprId q : get_exprs(e_.gen.pool(), rd))
      if (seen.insert(q).second) {
        distinct.push_back(q);
        first_here += r == ranks_->rank();
      }
  }
  collector_.c.phase_s.exchange += seconds_since(t0);
  if (distinct.empty()) return;
  std::vector<expr::ExprId> mine;
  for (size_t k = ranks_->rank(); k < distinct.size(); k += ranks_->size()) mine.push_back(distinct[k]);
  const expr::OracleStats before = e_.oracle.stats();
  std::vector<uint8_t> answers;
  e_.oracle.is_subexpr_batch(mine, answers);
  const expr::OracleStats after = e_.oracle.stats();
  r_.expr.queries -= after.queries - before.queries;
  r_.expr.cache_hits -= after.cache_hits - before.cache_hits + first_here;

  const auto t1 = Clock::now();
  const std::vector<std::string> all = ranks_->all_gather(std::string(answers.begin(), answers.end()));
  collector_.c.phase_s.exchange += seconds_since(t1);
  for (int r = 0; r < ranks_->size(); ++r)
    for (size_t j = 0; j < all[r].size(); ++j)
      e_.oracle.learn(distinct[r + j * ranks_->size()], all[r][j] != 0);
}

// Children other ranks own go to this rank's outbox (encoded: their parent, visited again, with
// their step applied), out of the chunks' `keep`.
uint64_t Bfs::route_out() {
  if (!ranks_) return 0;
  const int n = ranks_->size(), me = ranks_->rank();
  outbox_.assign(n, WireWriter{});
  uint64_t routed = 0;
  ThreadScratch& s = scratch_[0];
  for (size_t c = 0; c < num_chunks(); ++c) {
    Chunk& ch = chunks_[c];
    for (size_t i = 0; i < ch.children.size(); ++i) {
      const int owner = owner_of(ch.keys[i], n);
      if (!ch.keep[i] || owner == me) continue;
      s.cursor.move_to(levels_, current_, ch.children[i].parent, e_.gen, tree_);
      s.child = s.cursor.state();
      e_.gen.apply_in_place(s.child, unpack_step(ch.children[i], ch.openings));
      s.buffer.clear();
      s.buffer.push(s.child);
      put_state(s.buffer.state_bytes(0), s.buffer.bytes_of(0), outbox_[owner]);
      outbox_[owner].put(ch.keys[i]);
      ch.keep[i] = 0;
      ++routed;
      children_bytes_ += s.buffer.bytes_of(0);
    }
  }
  return routed;
}

// What the other ranks routed here joins layer depth + 1 unless an equal state is already there from
// this batch (the dedup guard, now over every rank's children), with its expressions rebuilt.
void Bfs::route_in() {
  if (!ranks_) return;
  auto t0 = Clock::now();
  std::vector<std::string> to(ranks_->size());
  for (int r = 0; r < ranks_->size(); ++r) to[r] = outbox_[r].take();
  const std::vector<std::string> from = ranks_->all_to_all(to);
  collector_.c.phase_s.exchange += seconds_since(t0);

  t0 = Clock::now();
  std::vector<std::string_view> items;
  std::vector<uint64_t> keys;
  for (int r = 0; r < ranks_->size(); ++r)
    for (WireReader rd(from[r]); !rd.done();) {
      items.push_back(rd.get_bytes());
      keys.push_back(rd.get<uint64_t>());
    }
  std::unordered_set<uint64_t> present;
  for (size_t c = 0; c < num_chunks(); ++c)
    for (size_t i = 0; i < chunks_[c].keys.size(); ++i)
      if (chunks_[c].keep[i]) present.insert(chunks_[c].keys[i]);
  std::vector<uint8_t> fresh(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    fresh[i] = present.insert(keys[i]).second;
    collector_.c.pruned.dedup += !fresh[i];
  }
  collector_.c.phase_s.dedup += seconds_since(t0);

  for (ThreadScratch& s : scratch_) s.kept = 0;
  parallel(&IdleTimes::route, items.size(), [&](size_t i, int t) {
    if (!fresh[i]) return;
    ThreadScratch& s = scratch_[t];
    search_detail::decode(reinterpret_cast<const uint8_t*>(items[i].data()), s.child);
    search_detail::rebuild_expressions(s.child, e_.gen.pool());
    s.buffer.clear();
    s.buffer.push(s.child);
    keep_base(s, s.buffer.state_bytes(0), s.buffer.bytes_of(0), keys[i]);
  });
  for (const ThreadScratch& s : scratch_) r_.items += s.kept;
  r_.levels[open_depth_ - 1].bytes += ranks_->bytes_sent() - sent_before_;
}

// Every rank writes its part, then (after all have) rank 0 commits the generation.
void Bfs::store(const Checkpoint& c) {
  ++generation_;
  const int rank = ranks_ ? ranks_->rank() : 0, size = ranks_ ? ranks_->size() : 1;
  opt_.checkpoints->write(c, rank, size, generation_);
  if (ranks_) {
    uint64_t written = 1;
    ranks_->sum(std::span(&written, 1));
  }
  if (rank == 0) opt_.checkpoints->commit(size, generation_);
}

Checkpoint Bfs::load() {
  const int rank = ranks_ ? ranks_->rank() : 0, size = ranks_ ? ranks_->size() : 1;
  return opt_.checkpoints->read(rank, size, run_key_, cfg_.rules(), &generation_);
}

}  // namespace ugs::search_detail
