// The generator's memos of openings (opening_memos.h): a generator that has enumerated the openings
// of many kernel graphs, and so answers from its tables and kept openings, gives every state the same
// candidates and rejection counts as a generator that meets that state first. On gqa_small's
// `mirage` space, whose second block graph's openings go through the closing lookahead; and whole
// searches find the same with the memos and without.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "search_util.h"
#include "ugs/expr/op_expr.h"
#include "ugs/expr/oracle.h"
#include "ugs/io/program.h"
#include "ugs/search/generator/generator.h"

namespace ugs {
namespace {

void expect_same_steps(const std::vector<Step>& a, const std::vector<Step>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].kind, b[i].kind) << i;
    EXPECT_EQ(a[i].grid, b[i].grid) << i;
    EXPECT_EQ(a[i].loop, b[i].loop) << i;
    EXPECT_TRUE(a[i].inputs.span().size() == b[i].inputs.span().size() &&
                std::equal(a[i].inputs.begin(), a[i].inputs.end(), b[i].inputs.begin()))
        << i;
    EXPECT_EQ(a[i].op, b[i].op) << i;
    EXPECT_EQ(a[i].omap, b[i].omap) << i;
    EXPECT_EQ(a[i].query, b[i].query) << i;
    EXPECT_EQ(a[i].launches, b[i].launches) << i;
  }
}

void expect_same_counts(const PruneCounts& a, const PruneCounts& b) {
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.order, b.order);
  EXPECT_EQ(a.memory, b.memory);
  EXPECT_EQ(a.reach, b.reach);
}

TEST(OpeningMemos, RememberedOpeningsAreThoseAFreshGeneratorMakes) {
  const Program p = load_program("gqa_small");
  const SearchConfig cfg = test::mirage_config(p);
  expr::ExprPool pool;
  const std::vector<expr::ExprId> targets = expr::output_exprs(pool, p.graph);
  expr::Oracle oracle(pool, targets);
  const Generator warm(p.graph, cfg, pool, &oracle);
  // Depth-first through the first block graph, in a shuffled order: every state outside a block
  // graph is compared, among them the closed first block graphs, whose candidates are the
  // lookahead's openings.
  std::vector<State> stack{warm.root()};
  size_t compared = 0, lookahead_openings = 0, fresh_signatures = 0;
  std::vector<Step> steps, fresh_steps;
  std::mt19937 rng(5);
  std::set<expr::ExprId> exprs;
  while (!stack.empty() && lookahead_openings < 60) {
    const State state = std::move(stack.back());
    stack.pop_back();
    steps.clear();
    PruneCounts pruned;
    warm.candidates(state, steps, pruned);
    if (!state.open) {  // where openings are made: compare with a generator that never met them
      const Generator fresh(p.graph, cfg, pool, &oracle);
      fresh_steps.clear();
      PruneCounts fresh_pruned;
      fresh.candidates(state, fresh_steps, fresh_pruned);
      expect_same_steps(steps, fresh_steps);
      expect_same_counts(pruned, fresh_pruned);
      fresh_signatures += fresh.lookahead_stats().signatures;
      ++compared;
      if (!state.kernel.blocks.empty()) {
        lookahead_openings += !steps.empty();
        exprs.insert(state.kexpr.back());
        continue;  // the second block graph is not walked
      }
    }
    std::shuffle(steps.begin(), steps.end(), rng);  // the walk reaches many first block graphs
    for (const Step& st : steps)
      if (st.query == kNoQuery || oracle.is_subexpr(st.query)) stack.push_back(warm.apply(state, st));
  }
  EXPECT_GT(compared, 100u);
  EXPECT_EQ(lookahead_openings, 60u);
  EXPECT_GE(exprs.size(), 5u);  // first block graphs of many kinds, their openings as many keys
  // The warm generator answered some of those openings from what it remembered.
  EXPECT_LT(warm.lookahead_stats().signatures, fresh_signatures);
}

// Whole searches with the memos and without (config opening_memos 0): the same μGraphs, states and
// rejections, concrete and symbolic, over threads that share the memos.
TEST(OpeningMemos, SearchesFindTheSameWithAndWithoutThem) {
  for (const char* name : {"gqa_small", "rmsnorm_linear_small", "lora_small"})
    for (const int symbolic : {0, 1})
      for (const Strategy strategy : {Strategy::Bfs, Strategy::DfsOmp}) {
        const Program p = load_program(name);
        SearchConfig cfg = test::config_for(p, {{"symbolic", symbolic}});
        const SearchResult with = test::search(p, cfg, strategy, 2);
        cfg.opening_memos = 0;
        const SearchResult without = test::search(p, cfg, strategy, 2);
        EXPECT_FALSE(with.mugraphs.empty()) << name;
        EXPECT_EQ(test::hashes(with), test::hashes(without)) << name;
        EXPECT_EQ(with.totals.states, without.totals.states) << name;
        EXPECT_EQ(with.totals.candidates, without.totals.candidates) << name;
        expect_same_counts(with.totals.pruned, without.totals.pruned);
      }
}

}  // namespace
}  // namespace ugs
