#pragma once
// The one generator every strategy drives (docs/design.md §5): from a state, the successor steps in a fixed
// deterministic order: predefined kernel ops, openings of block graphs (inputs × grid × loop range ×
// imaps × fmaps), block ops, closings (omap). Each step passes the shape, canonical-order and memory
// checks here; the abstract-expression check is the driver's (one query per step, so a breadth-first
// driver can batch them). No threads and no allocation per candidate beyond the output vector.
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ugs/expr/expr.h"
#include "ugs/search/generator/config.h"
#include "ugs/search/generator/opening_cut.h"
#include "ugs/search/generator/state.h"

namespace ugs {

namespace search_detail {
class ShapedOpsMemo;
class OutputShapes;
class OutputSymbols;
class ClosingMemo;
template <class Key, class Value>
class SharedMemo;
struct TableKey;
struct OpeningTable;
struct KeptKey;
struct KeptOpenings;
using OpeningTables = SharedMemo<TableKey, OpeningTable>;
using KeptOpeningsMemo = SharedMemo<KeptKey, KeptOpenings>;
struct ReplayStep;
using ReplayTrace = std::vector<ReplayStep>;
}  // namespace search_detail
namespace expr {
class Oracle;
}

class Generator {
 public:
  // `cfg` must be resolved (see resolve()); both must outlive the generator. With the search's
  // `oracle` (and the config's closing_lookahead), openings of a block graph no kernel op can follow
  // are searched ahead (closing_memo.h); once `stop` is raised, a search ahead ends at once and keeps
  // its opening.
  Generator(const KernelGraph& program, const SearchConfig& cfg, expr::ExprPool& pool,
            expr::Oracle* oracle = nullptr, const std::atomic<bool>* stop = nullptr);
  ~Generator();

  State root() const;
  // Appends the steps from `state` that pass the shape, order and memory checks; counts the others.
  // With `cut`, an opening of a block graph no kernel op can follow that it cuts is cut before the
  // closing lookahead searches it (counted in `pruned.cost`).
  void candidates(const State& state, std::vector<Step>& out, PruneCounts& pruned,
                  const OpeningCut* cut = nullptr) const;
  State apply(const State& state, const Step& step) const {
    State child = state;
    apply_in_place(child, step);
    return child;
  }
  void apply_in_place(State& state, const Step& step) const;
  // A step that appends one op (a kernel op, or a block op when a block graph is open) is taken back
  // by undo_op, so a driver can move between states in place, without copying them. In a symbolic
  // opening, `launches` are those alive after the op (the step's).
  static void apply_op(State& state, const Op& op, expr::ExprId query, uint64_t launches = 0);
  static void undo_op(State& state);
  // The launches an opening of the kernel tensors `ins` tries, in the generator's order: the grids
  // (listed, or Mirage's rule over the inputs), each with every loop range.
  void launch_table(const KernelGraph& kernel, std::span<const int32_t> ins, std::vector<Launch>& out) const;
  // Rebuilds `state.block` for launch i of its symbolic opening.
  static void rebase(State& state, int launch);
  // The μGraphs `state` completes: at kernel level, its open tensors matched to the program's outputs in
  // any order with equal shapes (one graph per matching order), outputs in program order.
  void completions(const State& state, std::vector<KernelGraph>& out) const;
  // Whether `state` is an opening that is replayed, not searched (config closing_replay,
  // closing_replay.cpp): a concrete opening of a block graph no kernel op can follow, above another
  // block graph. It has no candidates: the closed states below it are terminal, and what they complete
  // comes from replay().
  bool replays(const State& state) const;
  // The μGraphs completed by the closings below the replayed opening `state`: one group per closed
  // state (its completions), `group_ends` receiving each group's end in `out`. A driver records the
  // first of each group that passes, as it would under each closed state.
  void replay(const State& state, std::vector<KernelGraph>& out, std::vector<uint32_t>& group_ends) const;

  // The closing lookahead's work so far: signatures searched, and states visited doing so; of
  // those, the signatures that can close and their states; and openings answered from the memo.
  struct LookaheadStats {
    uint64_t signatures = 0, states = 0, closing = 0, closing_states = 0, answered = 0;
    // Openings replayed, the closings replayed on them, and traces made outside the lookahead.
    uint64_t replayed = 0, replayed_closings = 0, late_traces = 0;
    // Answers the memo had no room to keep (its budget passed: those signatures are searched again).
    uint64_t unremembered = 0;
    LookaheadStats& operator+=(const LookaheadStats& o) {
      unremembered += o.unremembered;
      replayed += o.replayed;
      replayed_closings += o.replayed_closings;
      late_traces += o.late_traces;
      signatures += o.signatures;
      states += o.states;
      closing += o.closing;
      closing_states += o.closing_states;
      answered += o.answered;
      return *this;
    }
  };
  LookaheadStats lookahead_stats() const;

  const KernelGraph& program() const { return program_; }
  const SearchConfig& config() const { return cfg_; }
  expr::ExprPool& pool() const { return pool_; }

 private:
  void kernel_op_steps(const State& state, std::vector<Step>& out, PruneCounts& pruned) const;
  void open_steps(const State& state, std::vector<Step>& out, PruneCounts& pruned, const OpeningCut* cut) const;
  void open_steps_for(const State& state, const FixedVec<int32_t, kMaxBlockInputs>& ins, std::vector<Step>& out,
                      PruneCounts& pruned, const OpeningCut* cut) const;
  void build_opening_table(const KernelGraph& kernel, std::span<const int32_t> ins, int output_shape_ops,
                           search_detail::OpeningTable& table) const;
  // Inside a block graph: `block` is state.block, or one launch of its symbolic opening.
  void block_op_steps(const State& state, const BlockGraph& block, std::vector<Step>& out,
                      PruneCounts& pruned) const;
  void close_steps(const State& state, const BlockGraph& block, std::vector<Step>& out, PruneCounts& pruned) const;
  // The steps of a symbolic opening: each launch's, those with the same op and expression merged.
  void symbolic_block_steps(const State& state, std::vector<Step>& out, PruneCounts& pruned) const;
  // Whether the block graph `opening` opens on `state`, one no kernel op can follow, can reach a
  // closing that saves outputs' expressions: remembered by signature (closing_lookahead.cpp).
  bool may_close(const State& state, const Step& opening) const;
  // Whether the tiles `outs` (a savable_tiles set) of state's block graph all have outputs'
  // expressions (with the expression check of the last block graph on).
  bool saves_outputs(const State& state, uint32_t outs) const;
  // What a search ahead did: the states it visited, and the queries the oracle's cache answered, told
  // to the oracle once per search (a shared counter bumped per query, tens of millions of them in
  // Mirage's attention spaces, had the threads contend on its cache line).
  struct AheadWork {
    uint64_t visited = 0, cache_hits = 0;
  };
  // The oracle's verdict on a step searched ahead: its cache's (counted in `work`), else its decision.
  bool ahead_keeps(expr::ExprId query, AheadWork& work) const;
  bool subtree_closes(State& state, int depth, AheadWork& work) const;
  // Searches the block ops below `state` whole, appending to `trace` the walk to each state where a
  // closing's block-level checks pass (closing_memo.h); whether it appended any.
  bool trace_subtree(State& state, search_detail::ReplayTrace& trace, AheadWork& work) const;
  // Whether the search's stop flag is up.
  bool stopped() const;
  // Sets state.family from a symbolic opening step (clears it for a concrete one).
  void open_family(State& state, const Step& opening) const;

  const KernelGraph& program_;
  const SearchConfig& cfg_;
  expr::ExprPool& pool_;
  GraphRules rules_;
  // The shaped block ops of the tile signatures met so far, shared by the threads (shaped_ops.h).
  std::unique_ptr<search_detail::ShapedOpsMemo> shaped_;
  // Whether the last block graph's openings may still save the outputs' shapes (output_shapes.h).
  std::unique_ptr<search_detail::OutputShapes> outputs_;
  // What the last block graph's tiles still lack of the outputs' expressions (output_symbols.h);
  // null when the check is off.
  std::unique_ptr<search_detail::OutputSymbols> symbols_;
  expr::Oracle* oracle_;
  // The search's stop flag (null: never stopped); the lookahead ends once it is up.
  const std::atomic<bool>* stop_;
  // The signatures of last block graphs searched ahead, and whether each can close; null when off.
  std::unique_ptr<search_detail::ClosingMemo> closings_;
  // The openings of block graphs by their inputs' shapes, and the last block graph's openings kept
  // by their inputs (opening_memos.h).
  std::unique_ptr<search_detail::OpeningTables> tables_;
  std::unique_ptr<search_detail::KeptOpeningsMemo> kept_openings_;
};

}  // namespace ugs
