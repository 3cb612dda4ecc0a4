// The dead-end check by expression in a block graph that must make the outputs (output_symbols.h):
// an op makes no feature but those features_made_by lists, so the ops a state needs bound the ops it
// has left; an output's atom is made only from a tile within its argument; and a tile saved there
// has an output's expression. A search with the check finds what one without it finds, with fewer
// states and fewer fingerprinted candidates.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <utility>
#include <string>
#include <vector>

#include "output_walker.h"
#include "search/generator/output_symbols.h"
#include "search/generator/reach.h"
#include "search_util.h"
#include "ugs/expr/op_expr.h"
#include "ugs/expr/oracle.h"
#include "ugs/io/program.h"
#include "ugs/search/generator/generator.h"

namespace ugs::search_detail {
namespace {

using test::mirage_config;

TEST(OutputSymbols, NoOpMakesWhatItDoesNotListAndADeadStateNeverCompletes) {
  // A second in all: gqa_small at 5 block ops meets every op of Mirage's attention list and states
  // the bound calls dead; mqa_small at 9 has completions that save the output's expression.
  Walk total;
  for (const auto& [name, block_ops] : {std::pair{"gqa_small", 5}, std::pair{"mqa_small", 9}}) {
    SCOPED_TRACE(name);
    const Program p = load_program(name);
    SearchConfig cfg = mirage_config(p);
    cfg.max_block_ops = block_ops;
    const Walk seen = walk_space(p, cfg);
    EXPECT_GT(seen.block_ops, 1000);
    if (std::string(name) == "gqa_small") {
      for (OpKind kind : cfg.block_ops) EXPECT_TRUE(seen.kinds_seen[static_cast<int>(kind)]) << name_of(kind);
    }
    total.dead += seen.dead;
    total.completing += seen.completing;
  }
  EXPECT_GT(total.dead, 0);
  EXPECT_GT(total.completing, 0);
}

TEST(OutputSymbols, TheOpsNeededCoverTheMissingFeatures) {
  const Program p = load_program("qknorm_gqa_small");  // exp, sums, a division, two rms atoms
  SearchConfig cfg = mirage_config(p);
  expr::ExprPool pool;
  const std::vector<expr::ExprId> outputs = expr::output_exprs(pool, p.graph);
  const OutputSymbols check(outputs, pool, cfg);
  OutputSymbols::Have loaded;  // Q, K and V as loaded: variables only
  for (int i = 0; i < 3; ++i) loaded.add(pool.facts(pool.var(i)));
  // Two rms_norms (Div, Rms, the primes, both atoms), an exp and a sum.
  EXPECT_EQ(check.ops_needed(loaded), 4);
  OutputSymbols::Have all = loaded;
  all.add(pool.facts(outputs[0]));
  EXPECT_EQ(check.ops_needed(all), 0);
  OutputSymbols::Have no_v;
  for (int i = 0; i < 2; ++i) no_v.add(pool.facts(pool.var(i)));
  EXPECT_EQ(check.ops_needed(no_v), OutputSymbols::kNever);  // no op makes a variable
  std::erase(cfg.block_ops, OpKind::Exp);
  const OutputSymbols no_exp(outputs, pool, cfg);
  EXPECT_EQ(no_exp.ops_needed(loaded), OutputSymbols::kNever);
  EXPECT_TRUE(check.is_output(outputs[0]));
  EXPECT_FALSE(check.is_output(pool.var(0)));
}

TEST(OutputSymbols, AnAtomIsMadeOnlyFromATileWithinItsArgument) {
  const Program p = load_program("qknorm_gqa_small");  // rms(16, x0) and rms(16, x2)
  const SearchConfig cfg = mirage_config(p);
  expr::ExprPool pool;
  const std::vector<expr::ExprId> outputs = expr::output_exprs(pool, p.graph);
  const OutputSymbols check(outputs, pool, cfg);
  const expr::ExprId q = pool.var(0), k = pool.var(1), v = pool.var(2);
  const auto reachable = [&](std::vector<expr::ExprId> tiles) { return check.atoms_reachable(tiles, pool); };
  EXPECT_TRUE(reachable({q, k, v}));
  EXPECT_TRUE(reachable({outputs[0]}));
  // V summed: rms(16, x2) needs a tile of x2 alone, and every tile built from these holds a sum.
  EXPECT_FALSE(reachable({q, k, pool.sum(64, v)}));
  // Held already, the atom needs no argument.
  const expr::ExprId vn = pool.div(v, pool.rms(16, v));
  EXPECT_TRUE(reachable({q, k, pool.sum(64, vn)}));
  // Q inside the scores: rms(16, x0) cannot be made any more.
  EXPECT_FALSE(reachable({pool.sum(16, pool.mul(q, k)), v}));
  EXPECT_TRUE(reachable({pool.sum(16, pool.mul(q, k)), q, v}));
}

// lora_small (Mirage's LoRA config) and gqa_small at a narrower space, each complete in seconds:
// equal hash sets, and the closings of the last block graph that save no output's expression are
// no longer fingerprinted.
TEST(OutputSymbols, TheCheckChangesNoResultAndCutsWork) {
  for (const std::string name : {"lora_small", "mqa_small"}) {
    SCOPED_TRACE(name);
    const Program p = load_program(name);
    SearchConfig cfg = mirage_config(p);
    const SearchResult with = test::search(p, cfg, Strategy::Bfs, 2);
    cfg.expr_reach = 0;
    const SearchResult without = test::search(p, cfg, Strategy::Bfs, 2);
    EXPECT_EQ(test::hashes(with), test::hashes(without));
    EXPECT_LE(with.totals.states, without.totals.states);
    EXPECT_LT(with.totals.fingerprint_evals, without.totals.fingerprint_evals);
  }
}

// The closing lookahead (closing_memo.h) cuts only openings under which no closing saves the outputs'
// expressions: the same completions are fingerprinted, and the same μGraphs found, by bfs and dfs-omp.
// Searched ahead only above a block graph (block_openings.cpp): mqa_small's space and gqa_small's,
// cut to 7 block ops to be quick, have one there.
TEST(ClosingLookahead, FingerprintsTheSameCompletionsWithFewerStates) {
  for (const auto& [name, block_ops] : {std::pair{"mqa_small", 0}, std::pair{"gqa_small", 7}}) {
    SCOPED_TRACE(name);
    const Program p = load_program(name);
    SearchConfig cfg = mirage_config(p);
    if (block_ops > 0) cfg.max_block_ops = block_ops;
    const SearchResult with = test::search(p, cfg, Strategy::Bfs, 2);
    const SearchResult dfs_omp = test::search(p, cfg, Strategy::DfsOmp, 2);
    cfg.closing_lookahead = 0;
    const SearchResult without = test::search(p, cfg, Strategy::Bfs, 2);
    EXPECT_EQ(test::hashes(with), test::hashes(without));
    EXPECT_EQ(test::hashes(dfs_omp), test::hashes(without));
    EXPECT_EQ(with.totals.fingerprint_evals, without.totals.fingerprint_evals);
    EXPECT_GT(with.totals.fingerprint_evals, 0u);
    EXPECT_LT(with.totals.states, without.totals.states);
    EXPECT_GT(with.lookahead.signatures, 0u);
    EXPECT_GT(with.lookahead.states, with.lookahead.signatures);
    EXPECT_EQ(without.lookahead.signatures, 0u);
  }
}

// A search stopped (its time limit, a signal) must not wait on the lookahead: once the stop flag is
// up, every opening is kept, as with the lookahead off, and no answer is remembered.
TEST(ClosingLookahead, OnceStoppedKeepsEveryOpening) {
  const Program p = load_program("gqa_small");
  SearchConfig cfg = mirage_config(p);
  SearchConfig off = cfg;
  off.closing_lookahead = 0;
  expr::ExprPool pool;
  expr::Oracle oracle(pool, expr::output_exprs(pool, p.graph));
  std::atomic<bool> running{false}, stopped{true};
  const Generator ahead(p.graph, cfg, pool, &oracle, &running);
  const Generator halted(p.graph, cfg, pool, &oracle, &stopped);
  const Generator plain(p.graph, off, pool, &oracle);
  // Depth-first to the first state whose openings the lookahead cuts.
  std::vector<State> todo{plain.root()};
  bool compared = false;
  while (!todo.empty() && !compared) {
    const State state = todo.back();
    todo.pop_back();
    std::vector<Step> cut, kept, all;
    PruneCounts pruned;
    ahead.candidates(state, cut, pruned);
    halted.candidates(state, kept, pruned);
    plain.candidates(state, all, pruned);
    if (cut.size() < all.size()) {
      EXPECT_EQ(kept.size(), all.size());
      EXPECT_EQ(halted.lookahead_stats().signatures, 0u);
      EXPECT_GT(ahead.lookahead_stats().signatures, 0u);
      compared = true;
    }
    for (const Step& st : all)
      if (st.query == kNoQuery || oracle.is_subexpr(st.query)) todo.push_back(plain.apply(state, st));
  }
  EXPECT_TRUE(compared);
}

}  // namespace
}  // namespace ugs::search_detail
