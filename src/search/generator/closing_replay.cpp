// The closing replay (config closing_replay; closing_memo.h). Below an opening of a block graph that
// no kernel op can follow, the block ops the search takes depend only on the opening's signature, and
// the states they reach are all inside that block graph but for its closings, which are terminal
// (nothing can follow the last block graph). So the lookahead searches a signature whole, once, and
// keeps the walk to every state where a closing's block-level checks pass; an opening it keeps is then
// not searched: the walk is replayed on it and each such state's closings are made with their
// kernel-level checks, as the search below it would make them. What the closed states complete is
// what the search would fingerprint, the same μGraphs from a fraction of the states.
#include <bit>

#include "search/generator/closing_memo.h"
#include "search/generator/reach.h"
#include "search/generator/savers.h"
#include "ugs/expr/oracle.h"
#include "ugs/search/generator/generator.h"

namespace ugs {

bool Generator::replays(const State& state) const {
  return closings_ && cfg_.closing_replay == 1 && state.open && !state.family.symbolic() &&
         state.block.ops.empty() && !state.kernel.blocks.empty() &&
         search_detail::kernel_ops_after_block(state.kernel, cfg_) <= 0;
}

// As subtree_closes, but whole: every op the search would keep, in its order.
bool Generator::trace_subtree(State& state, search_detail::ReplayTrace& trace, AheadWork& work) const {
  if (++work.visited % 1024 == 0 && stopped()) return false;
  const int depth = state.block.ops.size();
  thread_local std::array<std::vector<Step>, kMaxTiles + 1> steps_at;
  std::vector<Step>& steps = steps_at[depth];
  steps.clear();
  PruneCounts unused;
  block_op_steps(state, state.block, steps, unused);
  bool any = false;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step st = steps[i];  // a copy: the deeper calls use other vectors, but keep it plain
    if (!ahead_keeps(st.query, work)) continue;
    const size_t mark = trace.size();
    apply_op(state, st.op, st.query);
    const uint32_t outs = search_detail::savable_tiles(state.block);
    const bool closes = outs != 0 && std::popcount(outs) <= cfg_.max_block_outputs && saves_outputs(state, outs);
    trace.push_back({st.op, st.query, static_cast<uint8_t>(depth + 1), closes});
    const bool below = trace_subtree(state, trace, work);
    undo_op(state);
    if (!closes && !below) trace.resize(mark);  // nothing to replay through it
    any = any || closes || below;
  }
  return any;
}

void Generator::replay(const State& state, std::vector<KernelGraph>& out, std::vector<uint32_t>& group_ends) const {
  const int64_t savers = search_detail::savers_allowed(state.kernel, state.block, program_.outputs.size(), cfg_);
  const search_detail::SignatureDigest key = search_detail::digest_of(search_detail::signature_of(state, savers));
  std::shared_ptr<const search_detail::ReplayTrace> trace = closings_->trace(key);
  if (!trace) {  // an opening the lookahead did not search in this process (a resumed run's)
    auto made = std::make_shared<search_detail::ReplayTrace>();
    State walk = state;
    AheadWork work;
    trace_subtree(walk, *made, work);
    oracle_->add_cache_hits(work.cache_hits);
    if (stopped()) return;  // the search ends: the trace may be short
    closings_->states.fetch_add(work.visited, std::memory_order_relaxed);
    closings_->late_traces.fetch_add(1, std::memory_order_relaxed);
    closings_->add_trace(key, made);
    trace = std::move(made);
  }
  closings_->replayed.fetch_add(1, std::memory_order_relaxed);
  thread_local State walk;
  thread_local std::vector<Step> closings;
  walk = state;
  uint64_t replayed = 0;
  PruneCounts unused;  // the search below the opening is not made, nor are its rejections counted
  for (const search_detail::ReplayStep& step : *trace) {
    if (stopped()) break;
    while (walk.block.ops.size() >= step.ops) undo_op(walk);
    apply_op(walk, step.op, step.query);
    if (!step.closes) continue;
    closings.clear();
    close_steps(walk, walk.block, closings, unused);
    for (const Step& closing : closings) {
      const State closed = apply(walk, closing);
      const size_t before = out.size();
      completions(closed, out);
      if (out.size() > before) group_ends.push_back(static_cast<uint32_t>(out.size()));
      ++replayed;
    }
  }
  closings_->replayed_closings.fetch_add(replayed, std::memory_order_relaxed);
}

}  // namespace ugs
