#include "search/bfs/rank_exchange.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_set>

#include "search/distributed/expr_wire.h"
#include "search/distributed/state_wire.h"
#include "ugs/util/hash.h"

namespace ugs::search_detail {

namespace {

constexpr size_t kMaxDepths = 128;  // deeper than any config's search (kernel ops plus block steps)

int owner_of(uint64_t key, int ranks) { return static_cast<int>(splitmix64(key) % static_cast<uint64_t>(ranks)); }

}  // namespace

RankExchange::RankExchange(Comm* ranks, const Engine& engine, Team& team, Worker& collector, SearchResult& result)
    : ranks_(ranks), engine_(engine), team_(team), collector_(collector), result_(result), scratch_(team.size()) {}

bool RankExchange::sync(const LevelStore& store, bool found, FrontierView& view) {
  store.pending_sizes(view.sizes);  // the threads' open slabs too: joined before their level is read
  view.bytes = store.bytes();
  view.stop = engine_.stop.load(std::memory_order_relaxed);
  view.found = found;
  view.largest = view.sizes;
  if (!ranks_) return !view.stop;
  const size_t depths = view.sizes.size();
  if (depths > kMaxDepths) throw std::logic_error("bfs: more depths than kMaxDepths");
  const auto start = Clock::now();
  // The sums, then a row per rank where only that rank writes its own sizes: one collective gives
  // every rank every rank's shares.
  const size_t n = ranks_->size();
  constexpr size_t kFirst = 3;  // the sizes' offset
  std::vector<uint64_t> summed(kFirst + kMaxDepths * (1 + n), 0);
  summed[0] = view.stop;
  summed[1] = view.bytes;
  summed[2] = view.found;
  std::copy(view.sizes.begin(), view.sizes.end(), summed.begin() + kFirst);
  std::copy(view.sizes.begin(), view.sizes.end(), summed.begin() + kFirst + kMaxDepths * (1 + ranks_->rank()));
  ranks_->sum(summed);
  view.stop = summed[0] != 0;
  view.bytes = summed[1];
  view.found = summed[2] != 0;
  std::copy_n(summed.begin() + kFirst, depths, view.sizes.begin());
  for (size_t d = 0; d < depths; ++d) {
    view.largest[d] = 0;
    for (size_t r = 0; r < n; ++r)
      view.largest[d] = std::max(view.largest[d], summed[kFirst + kMaxDepths * (1 + r) + d]);
  }
  sent_before_ = ranks_->bytes_sent();
  collector_.counters.phase_s.exchange += seconds_since(start);
  return !view.stop;
}

// Each globally distinct query is solved by one rank (z3 counts it there) and learned by all. The
// queries and cache hits of that solving are taken back out of this rank's statistics, and each query
// this rank submitted first moves from its cache hits (where the main batch will count it) to z3, so
// that summed over ranks, queries = cache hits + structural + z3 calls + undecided, with z3 calls the
// distinct queries only z3 could answer, as in one process. The corrections go to the result's expr,
// which run_search and checkpoints add to the oracle's own counts (unsigned: the sum is what must be
// right).
void RankExchange::share_z3(const std::vector<expr::ExprId>& queries) {
  if (!ranks_) return;
  const auto start = Clock::now();
  std::vector<expr::ExprId> need(queries);
  std::sort(need.begin(), need.end());
  need.erase(std::unique(need.begin(), need.end()), need.end());
  std::erase_if(need, [&](expr::ExprId q) { return engine_.oracle.known_without_z3(q).has_value(); });
  WireWriter out;
  out.put(engine_.bound.limit_us());  // the batch's one collective also lowers every rank's cost limit
  put_exprs(engine_.gen.pool(), need, out);
  const std::vector<std::string> lists = ranks_->all_gather(out.take());

  std::vector<expr::ExprId> distinct;  // over all ranks, in order of first submission
  std::unordered_set<expr::ExprId> seen;
  uint64_t first_here = 0;
  for (int r = 0; r < ranks_->size(); ++r) {
    WireReader in(lists[r]);
    engine_.bound.lower_to(in.get<double>());
    for (expr::ExprId q : get_exprs(engine_.gen.pool(), in))
      if (seen.insert(q).second) {
        distinct.push_back(q);
        first_here += r == ranks_->rank();
      }
  }
  collector_.counters.phase_s.exchange += seconds_since(start);
  if (distinct.empty()) return;
  std::vector<expr::ExprId> mine;
  for (size_t k = ranks_->rank(); k < distinct.size(); k += ranks_->size()) mine.push_back(distinct[k]);
  const expr::OracleStats before = engine_.oracle.stats();
  std::vector<uint8_t> answers;
  engine_.oracle.is_subexpr_batch(mine, answers);
  const expr::OracleStats after = engine_.oracle.stats();
  result_.expr.queries -= after.queries - before.queries;
  result_.expr.cache_hits -= after.cache_hits - before.cache_hits + first_here;

  const auto shared = Clock::now();
  const std::vector<std::string> all = ranks_->all_gather(std::string(answers.begin(), answers.end()));
  collector_.counters.phase_s.exchange += seconds_since(shared);
  for (int r = 0; r < ranks_->size(); ++r)
    for (size_t j = 0; j < all[r].size(); ++j)
      engine_.oracle.learn(distinct[r + j * ranks_->size()], all[r][j] != 0);
}

bool spreads_children(uint64_t states, uint64_t largest, int ranks) {
  if (ranks <= 1) return false;
  const auto n = static_cast<uint64_t>(ranks);
  return states < kSpreadBelow * n || double(largest) * double(n) > kImbalance * double(states);
}

bool RankExchange::spreads(const FrontierView& view, int depth) const {
  return ranks_ && spreads_children(view.sizes[depth], view.largest[depth], ranks_->size());
}

// A child another rank owns is encoded whole: its parent, visited again, with its step applied.
uint64_t RankExchange::route_out(Batch& batch, const LevelStore& store, int depth, bool spread, uint64_t* bytes) {
  if (!spread) return 0;
  const int n = ranks_->size(), me = ranks_->rank();
  outbox_.assign(n, WireWriter{});
  uint64_t routed = 0;
  Scratch& s = scratch_[0];
  for (size_t c = 0; c < batch.chunk_count; ++c) {
    Chunk& chunk = batch.chunks[c];
    for (size_t i = 0; i < chunk.children.size(); ++i) {
      const int owner = owner_of(chunk.keys[i], n);
      if (!chunk.keep[i] || owner == me) continue;
      cursor_.move_to(store.levels(), depth, chunk.children[i].parent, engine_.gen, store.tree());
      s.child = cursor_.state();
      engine_.gen.apply_in_place(s.child, unpack_step(chunk.children[i], chunk.whole_steps));
      s.buffer.clear();
      s.buffer.push(s.child);
      put_state(s.buffer.state_bytes(0), s.buffer.bytes_of(0), outbox_[owner]);
      outbox_[owner].put(chunk.keys[i]);
      chunk.keep[i] = 0;
      ++routed;
      *bytes += s.buffer.bytes_of(0);
    }
  }
  return routed;
}

// What the other ranks routed here joins the open depth unless an equal state is already there from
// this batch (the dedup guard, now over every rank's children), with its expressions rebuilt.
void RankExchange::route_in(const Batch& batch, LevelStore& store, bool spread) {
  if (!ranks_) return;
  if (spread) arrive(batch, store);
  result_.levels[store.open_depth() - 1].bytes += ranks_->bytes_sent() - sent_before_;
}

void RankExchange::arrive(const Batch& batch, LevelStore& store) {
  auto start = Clock::now();
  std::vector<std::string> to(ranks_->size());
  for (int r = 0; r < ranks_->size(); ++r) to[r] = outbox_[r].take();
  const std::vector<std::string> from = ranks_->all_to_all(to);
  collector_.counters.phase_s.exchange += seconds_since(start);

  start = Clock::now();
  std::vector<std::string_view> items;
  std::vector<uint64_t> keys;
  for (int r = 0; r < ranks_->size(); ++r)
    for (WireReader in(from[r]); !in.done();) {
      items.push_back(in.get_bytes());
      keys.push_back(in.get<uint64_t>());
    }
  std::unordered_set<uint64_t> present;
  for (size_t c = 0; c < batch.chunk_count; ++c)
    for (size_t i = 0; i < batch.chunks[c].keys.size(); ++i)
      if (batch.chunks[c].keep[i]) present.insert(batch.chunks[c].keys[i]);
  std::vector<uint8_t> fresh(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    fresh[i] = present.insert(keys[i]).second;
    collector_.counters.pruned.dedup += !fresh[i];
  }
  collector_.counters.phase_s.dedup += seconds_since(start);

  store.reset_kept();
  team_.each(&IdleTimes::route, items.size(), [&](size_t i, int thread) {
    if (!fresh[i]) return;
    Scratch& s = scratch_[thread];
    decode(reinterpret_cast<const uint8_t*>(items[i].data()), s.child);
    rebuild_expressions(s.child, engine_.gen.pool());
    s.buffer.clear();
    s.buffer.push(s.child);
    store.keep_base(thread, s.buffer.state_bytes(0), s.buffer.bytes_of(0), keys[i]);
  });
  result_.items += store.kept();
}

bool RankExchange::any(bool mine) {
  uint64_t count = mine;
  if (ranks_) ranks_->sum(std::span(&count, 1));
  return count > 0;
}

void RankExchange::store(CheckpointStore& checkpoints, const Checkpoint& checkpoint, CheckpointSource& states) {
  ++generation_;
  checkpoints.write(checkpoint, states, rank(), size(), generation_);
  if (ranks_) {
    uint64_t written = 1;
    ranks_->sum(std::span(&written, 1));
  }
  if (rank() == 0) checkpoints.commit(size(), generation_);
}

Checkpoint RankExchange::load(const CheckpointStore& checkpoints, const std::string& run_key, const GraphRules& rules) {
  return checkpoints.read(rank(), size(), run_key, rules, &generation_);
}

}  // namespace ugs::search_detail
