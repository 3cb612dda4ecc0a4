// Symbolic openings (config `symbolic`, docs/search.md "Symbolic openings"): the concrete search's
// μGraphs from fewer states under every driver, and states inside an opening that encode, apply and
// take back exactly.
#include <gtest/gtest.h>

#include <bit>

#include "search/bfs/state_codec.h"
#include "search_util.h"
#include "test_util.h"
#include "ugs/search/generator/generator.h"
#include "ugs/search/search.h"

namespace ugs {
namespace {

using test::config_for;
using test::hashes;
using test::search;

SearchConfig symbolic(SearchConfig cfg) {
  cfg.symbolic = 1;
  return cfg;
}

// Spaces of a second or so whose openings have several launches (grids × loop ranges).
const std::pair<const char*, const char*> kSpaces[] = {
    {"rmsnorm_linear_small",
     R"({"grids": [[6, 1, 1], [12, 1, 1], [24, 1, 1]], "loop_ranges": [1, 4, 16], "max_kernel_ops": 3,
         "max_block_ops": 7})"},
    {"ntrans_small",
     R"({"grids": [[4, 1, 1], [8, 1, 1]], "loop_ranges": [1, 4, 16], "max_block_ops": 7, "max_kernel_ops": 6})"},
};

TEST(Symbolic, FindsTheConcreteMugraphsFromFewerStatesUnderEveryDriver) {
  for (const auto& [name, overrides] : kSpaces) {
    SCOPED_TRACE(name);
    const Program p = load_program(name);
    const SearchConfig concrete = config_for(p, nlohmann::json::parse(overrides));
    const SearchResult base = search(p, concrete, Strategy::Dfs, 1);
    ASSERT_FALSE(base.mugraphs.empty());
    EXPECT_EQ(base.totals.symbolic_states, 0u);
    const SearchResult first = search(p, symbolic(concrete), Strategy::Dfs, 1);
    EXPECT_LT(first.totals.states, base.totals.states);
    EXPECT_GT(first.totals.symbolic_states, 0u);
    EXPECT_GT(first.totals.instantiations, 0u);
    for (Strategy s : {Strategy::Dfs, Strategy::DfsStatic, Strategy::DfsOmp, Strategy::Bfs}) {
      for (int threads : {1, 2}) {
        SCOPED_TRACE(std::string(name_of(s)) + " x" + std::to_string(threads));
        const SearchResult result = search(p, symbolic(concrete), s, threads);
        EXPECT_EQ(hashes(result), hashes(base));
        EXPECT_EQ(result.duplicates, 0u);
        EXPECT_EQ(result.totals.states, first.totals.states);  // every driver walks the same tree
        EXPECT_EQ(result.totals.symbolic_states, first.totals.symbolic_states);
        EXPECT_EQ(result.totals.instantiations, first.totals.instantiations);
      }
    }
  }
}

// Every state of a small symbolic search: its block graph is built for its first launch alive; an op
// applied in place and taken back leaves it as it was (its encoding compared); and openings do merge
// launches, and ops narrow them.
TEST(Symbolic, StatesInsideAnOpeningEncodeApplyAndTakeBackExactly) {
  const Program p = load_program("rmsnorm_linear_small");
  const SearchConfig cfg = symbolic(config_for(p, nlohmann::json::parse(R"({"grids": [[6, 1, 1], [12, 1, 1], [24, 1, 1]],
      "loop_ranges": [1, 4, 16], "max_kernel_ops": 3, "max_block_ops": 6})")));
  expr::ExprPool pool;
  const Generator gen(p.graph, cfg, pool);
  std::vector<State> stack{gen.root()};
  size_t seen = 0, merged = 0, narrowed = 0, closings = 0;
  while (!stack.empty()) {
    State s = stack.back();
    stack.pop_back();
    ++seen;
    search_detail::Bytes before;  // the codec's test round-trips these states
    search_detail::encode(s, before);
    if (s.family.symbolic()) {
      const Launch& first = s.family.launches[std::countr_zero(s.family.alive_now())];
      EXPECT_EQ(s.block.grid, first.grid);
      EXPECT_EQ(s.block.loop, first.loop);
      EXPECT_EQ(s.family.alive.size(), s.block.tiles.size());
    }
    std::vector<Step> steps;
    PruneCounts pruned;
    gen.candidates(s, steps, pruned);
    for (const Step& st : steps) {
      merged += st.kind == Step::Kind::OpenBlock && std::popcount(st.launches) > 1;
      closings += st.kind == Step::Kind::CloseBlock && st.launch >= 0;
      if (st.kind == Step::Kind::BlockOp && s.family.symbolic()) {
        EXPECT_EQ(st.launches & ~s.family.alive_now(), 0u);
        narrowed += st.launches != s.family.alive_now();
        Generator::apply_op(s, st.op, st.query, st.launches);
        Generator::undo_op(s);
        search_detail::Bytes after;
        search_detail::encode(s, after);
        EXPECT_EQ(after, before);
      }
      stack.push_back(gen.apply(s, st));
    }
  }
  EXPECT_GT(seen, 1000u);
  EXPECT_GT(merged, 3u);
  EXPECT_GT(narrowed, 10u);
  EXPECT_GT(closings, 10u);
}

}  // namespace
}  // namespace ugs
