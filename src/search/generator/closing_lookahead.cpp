// The closing lookahead (closing_memo.h): an opening of a block graph that no kernel op can follow is
// cut when no sequence of its block ops that the search would take reaches a closing that saves the
// outputs' expressions. Searched depth-first once per signature, stopping at the first closing found
// (or whole, for the closing replay: closing_replay.cpp).
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

size_t ClosingMemo::Hash::operator()(const OpeningSignature& key) const {
  uint64_t h = 0x636c6f73696e67ull;
  for (int64_t w : key.words) h = splitmix64(h ^ static_cast<uint64_t>(w));
  return static_cast<size_t>(h);
}

std::optional<bool> ClosingMemo::find(const OpeningSignature& key) const {
  const Shard& shard = shard_of(key);
  const std::lock_guard lock(shard.mutex);
  const auto it = shard.answers.find(key);
  if (it == shard.answers.end()) return std::nullopt;
  return it->second;
}

void ClosingMemo::add(const OpeningSignature& key, bool closes) {
  Shard& shard = shard_of(key);
  const std::lock_guard lock(shard.mutex);
  shard.answers.emplace(key, closes);
}

std::shared_ptr<const ReplayTrace> ClosingMemo::trace(const OpeningSignature& key) const {
  const Shard& shard = shard_of(key);
  const std::lock_guard lock(shard.mutex);
  const auto it = shard.traces.find(key);
  return it == shard.traces.end() ? nullptr : it->second;
}

void ClosingMemo::add_trace(const OpeningSignature& key, std::shared_ptr<const ReplayTrace> trace) {
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
  const search_detail::OpeningSignature key = search_detail::signature_of(opened, savers);
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
          read(closings_->replayed_closings), read(closings_->late_traces)};
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
