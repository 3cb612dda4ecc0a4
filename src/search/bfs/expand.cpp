// One batch of the breadth-first search. The batch is cut into chunks of chunk_ states; each thread
// starts on its own contiguous range of chunks and, when done, steals from the back of another's
// (stealing_ranges.h), so neighbouring states stay on one thread. Each thread's cursor walks to each
// state of its chunk (a step back and a step forward from the previous one, mostly) and, while the
// state is hot in cache, generates its steps: a step whose query the oracle's cache knows (nearly
// all) is settled at once, the others wait for the batch's one oracle call. A child is its parent and
// its step: nothing is encoded. States with completions wait for the batch's one fingerprint call
// when the backend wants batches (a GPU), fed to it chunk by chunk as the batch expands; with the CPU
// backend their thread fingerprints them at once, through its own context (the tensors of its previous
// candidate), in parallel with the others. Fed states are finished by the next batch of their level,
// so that their fingerprints overlap its expansion (bfs_impl.h, pipelining). The serial glue reads the
// chunks in order, so a run is repeatable whatever thread took which chunk.
#include <algorithm>

#include "search/bfs/bfs_impl.h"

namespace ugs::search_detail {

namespace {

// Emptied, and its buffer freed if it is over kChunkKeepBytes: otherwise each of a batch's (up to 512)
// chunks would keep its largest batch's buffers, from a level of states with thousands of children
// each, for the rest of the search.
constexpr size_t kChunkKeepBytes = size_t{1} << 20;

template <class V>
void empty(V& v) {
  if (v.capacity() * sizeof(typename V::value_type) > kChunkKeepBytes)
    V().swap(v);
  else
    v.clear();
}

}  // namespace

void Chunk::clear() {
  empty(children);
  empty(openings);
  empty(opening_slots);
  empty(keys);
  empty(keep);
  kernel_level.clear();
  kernel_level_child.clear();
  empty(misses);
  deferred.clear();
}

void Fed::clear() {
  completions.clear();
  owners.clear();
  matched.clear();
}

bool Bfs::expand(int depth) {
  const auto t0 = Clock::now();
  before_batch_ = committed();
  const uint64_t verified_before = verified_count(), states_before = states_count();
  if (r_.levels.size() <= static_cast<size_t>(depth)) r_.levels.resize(depth + 1);
  r_.levels[depth].level = depth;
  lay_out_chunks();
  for (ThreadScratch& s : scratch_) s.candidates = s.cache_hits = 0;
  for (void (Bfs::*phase)() : {&Bfs::expand_chunks, &Bfs::verify, &Bfs::expand_deferred, &Bfs::settle_misses})
    if (!cut()) (this->*phase)();
  cut_ = cut();  // a phase cut short leaves its outputs incomplete: the children are not kept
  uint64_t candidates = 0, hits = 0;
  for (const ThreadScratch& s : scratch_) {
    candidates += s.candidates;
    hits += s.cache_hits;
  }
  e_.oracle.add_cache_hits(hits);
  r_.levels[depth].candidates += candidates;
  if (!cut_) {
    keep_children(depth);
    carry_deferred();
    expanded_ += n_ - carry_.size();  // the states whose children were kept: the carried ones count where they finish
  }
  r_.levels[depth].frontier += states_count() - states_before;  // those it finished, unless cut short
  r_.levels[depth].verified += verified_count() - verified_before;
  r_.levels[depth].wall_s += seconds_since(t0);
  return !cut_;
}

// The batch's own states (batch_ as run() took them), then the carried ones appended, each in chunks of
// chunk_: 64, or fewer in a small batch so that every thread gets at least 32 chunks. The carried
// states' chunks start with their deferral lists, as if expand_chunks had made them.
void Bfs::lay_out_chunks() {
  own_ = batch_.size();
  chunk_ = std::clamp<size_t>(own_ / (32 * static_cast<size_t>(threads_)), 1, kChunk);
  batch_.insert(batch_.end(), carry_.begin(), carry_.end());
  n_ = batch_.size();
  batch_keys_.resize(n_);
  own_chunks_ = (own_ + chunk_ - 1) / chunk_;
  chunks_n_ = own_chunks_ + (n_ - own_ + chunk_ - 1) / chunk_;
  if (chunks_.size() < chunks_n_) chunks_.resize(chunks_n_);
  for (size_t c = own_chunks_; c < chunks_n_; ++c) {
    chunks_[c].clear();
    const auto [begin, end] = states_of(c);
    for (size_t i = begin; i < end; ++i) chunks_[c].deferred.push_back(static_cast<uint32_t>(i));
  }
  draining_ = !pipelined_ || levels_[current_].pending() == own_;
  fed_now_ ^= 1;
  if (fed_[fed_now_].size() < own_chunks_) fed_[fed_now_].resize(own_chunks_);
  if (feed_) fed_before_mark_ = feed_->mark();
}

std::pair<size_t, size_t> Bfs::states_of(size_t chunk) const {
  if (chunk < own_chunks_) return {chunk * chunk_, std::min(own_, (chunk + 1) * chunk_)};
  const size_t begin = own_ + (chunk - own_chunks_) * chunk_;
  return {begin, std::min(n_, begin + chunk_)};
}

uint64_t Bfs::verified_count() const {
  uint64_t n = collector_.c.verified;
  for (const Worker& w : workers_) n += w.c.verified;
  return n;
}

uint64_t Bfs::states_count() const {
  uint64_t n = 0;
  for (const Worker& w : workers_) n += w.c.states;
  return n;
}

void Bfs::visit(uint32_t i, int t) {
  Cursor& c = scratch_[t].cursor;
  // The level is read from memory: a node two strides ahead, and the parent of the one a stride ahead.
  const Level& level = levels_[current_];
  if (i + 2 * kPrefetch < n_) __builtin_prefetch(&level.node(batch_[i + 2 * kPrefetch]));
  if (i + kPrefetch < n_ && current_ > 0) {
    const uint32_t parent = level.node(batch_[i + kPrefetch]).parent;
    if (parent != kBase) __builtin_prefetch(&levels_[current_ - 1].node(parent));
  }
  c.move_to(levels_, current_, batch_[i], e_.gen, tree_);
  batch_keys_[i] = c.key();
}

void Bfs::expand_chunks() {
  const auto t0 = Clock::now();
  each_chunk(&IdleTimes::expand, own_chunks_, [&](size_t c, int t) {
    ready_next_slab(t);
    Chunk& ch = chunks_[c];
    ch.clear();
    Fed& fed = fed_[fed_now_][c];
    fed.clear();
    Worker& w = workers_[t];
    for (auto [i, end] = states_of(c); i < end && !cut(); ++i) {
      w.progress.fetch_add(1, std::memory_order_relaxed);
      visit(static_cast<uint32_t>(i), t);
      const State& s = scratch_[t].cursor.state();
      const size_t before = fed.completions.size();
      e_.gen.completions(s, fed.completions);
      const bool completes = fed.completions.size() > before;  // verified first: a verified μGraph is not extended
      if (completes && batched_) {  // fed; a state once finished (expand_deferred)
        fed.owners.resize(fed.completions.size(), static_cast<uint32_t>(i));
        ch.deferred.push_back(static_cast<uint32_t>(i));
        continue;
      }
      ++w.c.states;
      if (completes) {
        const bool verified = verify_completions(e_, std::span(fed.completions).subspan(before), w, cut_flag(),
                                                 scratch_[t].fingerprints.get());  // here, on this thread
        fed.completions.resize(before);
        if (verified || cut()) continue;
      }
      generate(static_cast<uint32_t>(i), ch, t);
    }
    if (feed_ && !fed.completions.empty()) feed_->add(fed.completions, &fed.matched);
  });
  collector_.c.phase_s.expand += seconds_since(t0);
}

// The steps from state i (under thread t's cursor); those the cache settles become children at once.
void Bfs::generate(uint32_t i, Chunk& c, int t) {
  ThreadScratch& s = scratch_[t];
  Worker& w = workers_[t];
  s.steps.clear();
  e_.gen.candidates(s.cursor.state(), s.steps, w.c.pruned);
  w.c.candidates += s.steps.size();
  s.candidates += s.steps.size();
  for (const Step& st : s.steps) {
    if (st.query == kNoQuery) {
      make_child(i, st, c, t);
      continue;
    }
    const std::optional<bool> known = e_.oracle.cached(st.query);
    if (!known) {
      c.misses.push_back({i, st});
    } else {
      ++s.cache_hits;
      if (*known)
        make_child(i, st, c, t);
      else
        ++w.c.pruned.expr;
    }
  }
}

// The child of batch state i by st: its parent, step and key. Function dedup also needs the graph of a
// child outside any block graph, applied to a copy of the parent (thread t's cursor stands on it).
void Bfs::make_child(uint32_t i, const Step& st, Chunk& c, int t) {
  const bool kernel_level = st.kind == Step::Kind::CloseBlock || st.kind == Step::Kind::KernelOp;
  if (opt_.dedup == Dedup::Function && kernel_level) {
    State& child = scratch_[t].child = scratch_[t].cursor.state();
    e_.gen.apply_in_place(child, st);
    c.kernel_level.push_back(child.g);
    c.kernel_level_child.push_back(static_cast<uint32_t>(c.children.size()));
  }
  // The chunk's states mostly share their kernel-level tensors, so their openings repeat: stored once.
  const uint32_t opening = st.kind == Step::Kind::OpenBlock ? store_opening(c.openings, c.opening_slots, st) : 0;
  c.children.push_back({batch_[i], st.query, pack_step(st, opening)});
  c.keys.push_back(child_key(batch_keys_[i], step_hash(st)));
  c.keep.push_back(1);  // here, on the chunk's thread, rather than serially after the batch
}

// The completions of the carried states and, in a batch that drains, of its own, once the feed has
// fingerprinted them. A state with a match is not expanded if one of its matching completions passes
// confirmation (as `visit` does in the depth-first drivers).
void Bfs::verify() {
  runs_.clear();
  verified_.assign(n_, 0);
  if (!feed_) return;  // completions verified as they came (expand_chunks)
  fingerprint_completions();
  if (graphs_.empty() || cut()) return;  // cut: the fingerprints may be incomplete
  for (size_t k = 0; k < graphs_.size();) {
    size_t end = k;
    bool any = false;
    while (end < graphs_.size() && owner_[end] == owner_[k]) any |= fp_.match[end++] != 0;
    if (any) runs_.emplace_back(k, end);
    k = end;
  }
  if (!runs_.empty() && e_.verifier.confirms_on_device()) confirm_field_tests_in_bulk();
  // One run: its confirmation with the evaluator's own threads (blocks, rows); more: side by side,
  // each on one thread (the float64 check of a large candidate gains little from the evaluator's).
  if (runs_.size() <= 1)
    for (size_t j = 0; j < runs_.size(); ++j) confirm_run(j);
  else
    parallel(&IdleTimes::confirm, runs_.size(), [&](size_t j, int) { confirm_run(j); }, /*dynamic=*/true);
}

// The completions to verify into graphs_, owner_ and fp_.match, in batch order, once the feed has
// their flags: the carried states' (fed while the batch before expanded, and while this one did) and,
// when the batch drains, its own. The feed's time in backend calls is the phase's, though it
// overlapped the expansion.
void Bfs::fingerprint_completions() {
  const auto t0 = Clock::now();
  collector_.c.phase_s.fingerprint += feed_->wait(draining_ ? FingerprintFeed::kAll : fed_before_mark_).call_s;
  feed_wait_s_ += seconds_since(t0);
  graphs_.clear();
  owner_.clear();
  fp_.match.clear();
  if (n_ > own_) gather_completions(fed_[fed_now_ ^ 1], fed_before_chunks_, static_cast<uint32_t>(own_));
  if (draining_) gather_completions(fed_[fed_now_], own_chunks_, 0);
  collector_.c.fingerprint_evals += graphs_.size();
}

// Owners in `fed` are batch states less first_owner.
void Bfs::gather_completions(std::vector<Fed>& fed, size_t chunks, uint32_t first_owner) {
  for (size_t c = 0; c < chunks; ++c) {
    const Fed& f = fed[c];
    for (size_t k = 0; k < f.completions.size(); ++k) {
      graphs_.push_back(&f.completions[k]);
      owner_.push_back(first_owner + f.owners[k]);
    }
    fp_.match.insert(fp_.match.end(), f.matched.begin(), f.matched.end());
  }
}

// The field tests of every matching completion of the runs, one backend call per test (the device
// tests some a run-by-run confirmation would have skipped after an earlier pass: cheaper than calls).
void Bfs::confirm_field_tests_in_bulk() {
  const auto t0 = Clock::now();
  matched_.clear();
  matched_at_.assign(graphs_.size(), 0);
  for (const auto& [begin, end] : runs_)
    for (size_t k = begin; k < end; ++k)
      if (fp_.match[k]) {
        matched_at_[k] = static_cast<uint32_t>(matched_.size());
        matched_.push_back(graphs_[k]);
      }
  e_.verifier.confirm_field_tests(matched_, confirm_passes_);
  collector_.c.phase_s.verify += seconds_since(t0);
}

// Confirms run j's matching completions in order; the first that passes is recorded.
void Bfs::confirm_run(size_t j) {
  const auto t0 = Clock::now();
  Worker& w = workers_[omp_get_thread_num()];
  const bool bulk = e_.verifier.confirms_on_device();
  const size_t tests = static_cast<size_t>(e_.verifier.confirm_tests());
  for (size_t k = runs_[j].first; k < runs_[j].second && !cut(); ++k) {
    if (!fp_.match[k]) continue;
    ++w.c.fingerprint_passes;
    const VerifyResult r =
        bulk ? e_.verifier.confirm_with(*graphs_[k], std::span(confirm_passes_).subspan(matched_at_[k] * tests, tests))
             : e_.verifier.confirm(*graphs_[k], cut_flag());
    if (r.stopped) break;
    if (!r.equivalent) {
      ++w.c.confirm_failures;
      continue;
    }
    ++w.c.verified;
    w.found.push_back(*graphs_[k]);
    verified_[owner_[k]] = 1;
    break;
  }
  w.c.phase_s.verify += seconds_since(t0);
}

// The carried states and, when the batch drains, its own with completions: each counts as a state now,
// and those none of whose completions passed are expanded.
void Bfs::expand_deferred() {
  const size_t first = draining_ ? 0 : own_chunks_;
  bool any = false;
  for (size_t c = first; c < num_chunks() && !any; ++c) any = !chunks_[c].deferred.empty();
  if (!any) return;
  const auto t0 = Clock::now();
  each_chunk(&IdleTimes::deferred, num_chunks() - first, [&](size_t k, int t) {
    Chunk& ch = chunks_[first + k];
    Worker& w = workers_[t];
    for (uint32_t i : ch.deferred) {
      if (cut()) break;
      ++w.c.states;
      if (verified_[i]) continue;
      visit(i, t);
      generate(i, ch, t);
    }
  });
  collector_.c.phase_s.expand += seconds_since(t0);
}

// A batch that does not end its level leaves its states with completions to the next: they are kept
// in carry_, and their completions' owners become their index there.
void Bfs::carry_deferred() {
  carry_.clear();
  fed_before_chunks_ = own_chunks_;
  if (draining_) return;
  for (size_t c = 0; c < own_chunks_; ++c) {
    const std::vector<uint32_t>& deferred = chunks_[c].deferred;
    size_t j = 0;  // owners and deferred both ascend
    for (uint32_t& owner : fed_[fed_now_][c].owners) {
      while (deferred[j] != owner) ++j;
      owner = static_cast<uint32_t>(carry_.size() + j);
    }
    for (uint32_t i : deferred) carry_.push_back(batch_[i]);
  }
  r_.carried += carry_.size();
}

// The queries the cache did not know, in one oracle call that answers each distinct one once (with
// ranks, those only z3 can answer once over all ranks); then the children of the kept steps (the
// parent visited again only when function dedup needs its graph).
void Bfs::settle_misses() {
  auto t0 = Clock::now();
  queries_.clear();
  for (size_t c = 0; c < num_chunks(); ++c)
    for (const Pending& p : chunks_[c].misses) queries_.push_back(p.step.query);
  share_z3(queries_);
  e_.oracle.is_subexpr_batch(queries_, answers_);
  collector_.c.phase_s.expr += seconds_since(t0);
  if (queries_.empty()) return;

  t0 = Clock::now();
  std::vector<size_t> first(num_chunks() + 1, 0);  // chunk c's answers start at first[c]
  for (size_t c = 0; c < num_chunks(); ++c) first[c + 1] = first[c] + chunks_[c].misses.size();
  each_chunk(&IdleTimes::misses, num_chunks(), [&](size_t c, int t) {
    for (size_t k = 0; k < chunks_[c].misses.size(); ++k) {
      const Pending& p = chunks_[c].misses[k];
      if (!answers_[first[c] + k]) {
        ++workers_[t].c.pruned.expr;
        continue;
      }
      if (opt_.dedup == Dedup::Function) visit(p.parent, t);
      make_child(p.parent, p.step, chunks_[c], t);
    }
  });
  collector_.c.phase_s.expand += seconds_since(t0);
}

// The children deduplicated, those other ranks own sent to them, the rest put into the threads' open
// slabs: thread t takes the t-th of equal slices of the batch's children in chunk order, so the
// level's order does not depend on timing, and the copying is balanced however unevenly the children
// fall in chunks (by chunks, full gqa's 16 threads waited 4.0 thread-seconds in this region on the
// H100 machine; by children 2.3-2.4, at the same batch size).
void Bfs::keep_children(int depth) {
  dedup();
  const uint64_t routed = route_out();

  const auto t0 = Clock::now();
  if (open_depth_ != depth + 1) flush();
  open_depth_ = depth + 1;
  const size_t n = num_chunks();
  first_child_.resize(n + 1);
  first_child_[0] = 0;
  for (size_t c = 0; c < n; ++c) first_child_[c + 1] = first_child_[c] + chunks_[c].children.size();
  const size_t total = first_child_[n];
  each_thread(&IdleTimes::keep, [&](int t) {
    ThreadScratch& s = scratch_[t];
    s.kept = s.kept_bytes = 0;
    const size_t to = total * (t + 1) / threads_;
    size_t from = total * t / threads_;
    size_t c = static_cast<size_t>(std::upper_bound(first_child_.begin(), first_child_.end(), from) -
                                   first_child_.begin()) - 1;
    for (; from < to; ++c) {
      const Chunk& ch = chunks_[c];
      const size_t end = std::min(first_child_[c + 1], to) - first_child_[c];
      for (size_t i = from - first_child_[c]; i < end; ++i)
        if (ch.keep[i]) keep_node(s, ch.children[i], ch.openings);
      from = first_child_[c] + end;
    }
  });
  uint64_t survivors = routed;
  for (const ThreadScratch& s : scratch_) {
    survivors += s.kept;
    children_bytes_ += s.kept_bytes;
  }
  collector_.c.phase_s.expand += seconds_since(t0);
  route_in();
  join_full();
  r_.levels[depth].survivors += survivors;
}

}  // namespace ugs::search_detail
