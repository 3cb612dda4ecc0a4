// The closing lookahead (closing_memo.h): an opening of a block graph that no kernel op can follow is
// cut when no sequence of its block ops that the search would take reaches a closing that saves the
// outputs' expressions. Searched depth-first once per signature, stopping at the first closing found
// (or whole, for the closing replay: closing_replay.cpp).
#include <algorithm>
#include <bit>

#include "search/generator/closing_memo.h"
#include "search/generator/output_symbols.h"
#include "search/generator/reach.h"
#include "search/generator/savers.h"
#include "ugs/expr/oracle.h"
#include "ugs/search/generator/generator.h"
#include "ugs/util/hash.h"

namespace ugs {

namespace search_detail {

SignatureDigest digest_of(const OpeningSignature& key) {
  // Two chains with different seeds and different mixes of each word: independent 64-bit hashes.
  uint64_t low = 0x636c6f73696e67ull, high = 0x7369676e6174ull;
  for (int64_t w : key.words) {
    low = splitmix64(low ^ static_cast<uint64_t>(w));
    high = splitmix64(high + static_cast<uint64_t>(w) * 0xD6E8FEB86659FD93ull);
  }
  return {low, high};
}

size_t AnswerTable::slot_of(const SignatureDigest& key) const {
  const size_t mask = slots_.size() - 1;
  const SignatureDigest want = stored(key, false);
  size_t at = static_cast<size_t>(key.low >> 1) & mask;
  for (; slots_[at].high != 0; at = (at + 1) & mask)
    if (slots_[at].high == want.high && (slots_[at].low | 1) == (want.low | 1)) return at;
  return at;
}

std::optional<bool> AnswerTable::find(const SignatureDigest& key) const {
  if (size_ == 0) return std::nullopt;
  const SignatureDigest& at = slots_[slot_of(key)];
  if (at.high == 0) return std::nullopt;
  return (at.low & 1) != 0;
}

bool AnswerTable::add(const SignatureDigest& key, bool closes) {
  if (2 * (size_ + 1) > slots_.size() && slots_.size() * 2 <= max_slots_) grow();
  if (slots_.empty()) return false;
  SignatureDigest& at = slots_[slot_of(key)];
  if (at.high != 0) return true;
  if (2 * (size_ + 1) > slots_.size()) return false;
  at = stored(key, closes);
  ++size_;
  return true;
}

void AnswerTable::grow() {
  std::vector<SignatureDigest> old = std::move(slots_);
  slots_.assign(std::min(max_slots_, std::max<size_t>(1024, 2 * old.size())), SignatureDigest{});
  for (const SignatureDigest& entry : old)  // distinct keys: each probe ends at an empty slot
    if (entry.high != 0) slots_[slot_of(entry)] = entry;
}

std::optional<bool> ClosingMemo::find(const SignatureDigest& key) const {
  const Shard& shard = shard_of(key);
  const std::lock_guard lock(shard.mutex);
  return shard.answers.find(key);
}

ClosingMemo::ClosingMemo(size_t budget_bytes) {
  const size_t slots = std::bit_floor(std::max<size_t>(budget_bytes / kShards / sizeof(SignatureDigest), 2));
  for (Shard& shard : shards_) shard.answers = AnswerTable(slots);
}

void ClosingMemo::add(const SignatureDigest& key, bool closes) {
  Shard& shard = shard_of(key);
  const std::lock_guard lock(shard.mutex);
  if (!shard.answers.add(key, closes)) unremembered.fetch_add(1, std::memory_order_relaxed);
}

size_t ClosingMemo::size() const {
  return sum_of([](const AnswerTable& answers) { return answers.size(); });
}

size_t ClosingMemo::bytes() const {
  return sum_of([](const AnswerTable& answers) { return answers.bytes(); });
}

std::shared_ptr<const ReplayTrace> ClosingMemo::trace(const SignatureDigest& key) const {
  const Shard& shard = shard_of(key);
  const std::lock_guard lock(shard.mutex);
  const auto it = shard.traces.find(key);
  return it == shard.traces.end() ? nullptr : it->second;
}

void ClosingMemo::add_trace(const SignatureDigest& key, std::shared_ptr<const ReplayTrace> trace) {
  Shard& shard = shard_of(key);
  const std::lock_guard lock(shard.mutex);
  shard.traces.emplace(key, std::move(trace));
}

OpeningSignature signature_of(const State& opened, int64_t savers) {
  OpeningSignature key;
  const BlockGraph& block = opened.block;
  int at = 0;
  for (int a = 0; a < 3; ++a) key.words[at++] = block.grid[a];
  key.words[at++] = block.loop;
  key.words[at++] = savers;
  key.words[at++] = block.tiles.size();
  for (int t = 0; t < block.tiles.size(); ++t) {
    const Tile& tile = block.tiles[t];
    key.words[at++] = tile.post;
    key.words[at++] = tile.shape.rank;
    for (int d = 0; d < tile.shape.rank; ++d) key.words[at++] = tile.shape.d[d];
    key.words[at++] = opened.bexpr[t];
  }
  return key;
}

}  // namespace search_detail

bool Generator::may_close(const State& state, const Step& opening) const {
  if (stopped()) return true;  // the search ends: no answer is needed
  State opened = apply(state, opening);  // searched in place: the walk takes back every op it adds
  const int64_t savers = search_detail::savers_allowed(opened.kernel, opened.block, program_.outputs.size(), cfg_);
  const search_detail::SignatureDigest key = search_detail::digest_of(search_detail::signature_of(opened, savers));
  if (const std::optional<bool> known = closings_->find(key)) {
    closings_->answered.fetch_add(1, std::memory_order_relaxed);
    return *known;
  }
  AheadWork work;
  bool closes = false;
  std::shared_ptr<search_detail::ReplayTrace> trace;
  if (cfg_.closing_replay == 1) {  // searched whole: its closings are replayed on every opening kept
    trace = std::make_shared<search_detail::ReplayTrace>();
    trace_subtree(opened, *trace, work);
    closes = !trace->empty();
  } else {
    closes = subtree_closes(opened, 0, work);
  }
  oracle_->add_cache_hits(work.cache_hits);
  if (stopped()) return true;  // the search may have ended early: not an answer to remember
  if (closes && trace) closings_->add_trace(key, std::move(trace));
  closings_->add(key, closes);
  closings_->signatures.fetch_add(1, std::memory_order_relaxed);
  closings_->states.fetch_add(work.visited, std::memory_order_relaxed);
  if (closes) {
    closings_->closing.fetch_add(1, std::memory_order_relaxed);
    closings_->closing_states.fetch_add(work.visited, std::memory_order_relaxed);
  }
  return closes;
}

bool Generator::stopped() const { return stop_ && stop_->load(std::memory_order_relaxed); }

Generator::LookaheadStats Generator::lookahead_stats() const {
  if (!closings_) return {};
  const auto read = [](const std::atomic<uint64_t>& n) { return n.load(std::memory_order_relaxed); };
  return {read(closings_->signatures),     read(closings_->states),   read(closings_->closing),
          read(closings_->closing_states), read(closings_->answered), read(closings_->replayed),
          read(closings_->replayed_closings), read(closings_->late_traces), read(closings_->unremembered)};
}

bool Generator::ahead_keeps(expr::ExprId query, AheadWork& work) const {
  if (const std::optional<bool> hit = oracle_->cached(query)) {
    ++work.cache_hits;
    return *hit;
  }
  return oracle_->is_subexpr(query);
}

// The block-level part of close_steps' checks (the kernel-level ones differ between the kernel graphs
// that share a signature, and leaving them out keeps the answer an over-approximation).
bool Generator::subtree_closes(State& state, int depth, AheadWork& work) const {
  if (++work.visited % 1024 == 0 && stopped()) return true;
  const BlockGraph& block = state.block;
  if (!block.ops.empty()) {
    const uint32_t outs = search_detail::savable_tiles(block);
    if (outs != 0 && std::popcount(outs) <= cfg_.max_block_outputs && saves_outputs(state, outs)) return true;
  }
  thread_local std::array<std::vector<Step>, kMaxTiles + 1> steps_at;
  std::vector<Step>& steps = steps_at[depth];
  steps.clear();
  PruneCounts unused;
  block_op_steps(state, block, steps, unused);
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step st = steps[i];  // a copy: the deeper calls use other vectors, but keep it plain
    if (!ahead_keeps(st.query, work)) continue;
    apply_op(state, st.op, st.query);
    const bool closes = subtree_closes(state, depth + 1, work);
    undo_op(state);
    if (closes) return true;
  }
  return false;
}

}  // namespace ugs
