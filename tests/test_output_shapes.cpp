// The dead-end check at the last block graph's openings (output_shapes.h): every tile a block graph
// computes has a shape within reach of its loaded tiles, so an opening the check rejects holds no
// μGraph, and a search with the check finds what one without it finds.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "search/generator/output_shapes.h"
#include "search/generator/reach.h"
#include "search_util.h"
#include "ugs/expr/op_expr.h"
#include "ugs/expr/oracle.h"
#include "ugs/io/program.h"
#include "ugs/search/generator/generator.h"

namespace ugs::search_detail {
namespace {

using test::mirage_config;

struct Walk {
  int64_t openings = 0, rejected = 0, completing = 0;
};

// Depth-first through every state the abstract-expression check keeps (the output check off, so that
// the rejected openings' subtrees are there), checking inside each block graph no kernel op can follow
// that its tiles' shapes are within reach of its loaders (`reach`, taken at its opening), and that an
// opening the check rejects leads to no completion (the closing of such a block graph completes the
// kernel graph, so `rejected` holds down to the leaves).
struct Walker {
  const Generator& gen;
  expr::Oracle& oracle;
  const OutputShapes& check;
  Walk seen;

  void walk(const State& state, bool rejected, const std::vector<Shape>& reach) {
    const SearchConfig& cfg = gen.config();
    std::vector<Shape> opened;
    if (state.open && kernel_ops_after_block(state.kernel, cfg) <= 0) {
      const BlockGraph& b = state.block;
      if (b.ops.empty()) {
        std::vector<Shape> loaded;
        for (int i = 0; i < b.inputs.size(); ++i) loaded.push_back(b.tiles[i].shape);
        const int ops = static_cast<int>(cfg.max_block_ops - b.inputs.size());
        opened = check.reachable(loaded, ops);
        ++seen.openings;
        rejected = !check.may_save_output(b.grid, loaded, ops);
        seen.rejected += rejected;
      }
      const std::vector<Shape>& shapes = b.ops.empty() ? opened : reach;
      for (const Tile& t : b.tiles) {
        ASSERT_NE(std::find(shapes.begin(), shapes.end(), t.shape), shapes.end()) << "a tile out of reach";
      }
    }
    std::vector<KernelGraph> done;
    gen.completions(state, done);
    if (!done.empty()) {
      ++seen.completing;
      ASSERT_FALSE(rejected) << "a rejected opening completes";
    }
    std::vector<Step> steps;
    PruneCounts pruned;
    gen.candidates(state, steps, pruned);
    for (const Step& st : steps) {
      if (st.query != kNoQuery && !oracle.is_subexpr(st.query)) continue;
      walk(gen.apply(state, st), rejected, opened.empty() ? reach : opened);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
};

TEST(OutputShapes, ARejectedOpeningLeadsToNoCompletion) {
  // Small enough to walk whole in a second or two.
  for (const auto& [name, block_ops] : {std::pair{"mqa_small", 9}, std::pair{"gqa_small", 5}}) {
    SCOPED_TRACE(name);
    const Program p = load_program(name);
    SearchConfig cfg = mirage_config(p);
    cfg.max_block_ops = block_ops;
    cfg.output_reach = 0;
    cfg.expr_reach = 0;  // which would leave no completion at 5 block ops
    expr::ExprPool pool;
    const Generator gen(p.graph, cfg, pool);
    expr::Oracle oracle(pool, expr::output_exprs(pool, p.graph));
    const OutputShapes check(p.graph, cfg);
    Walker walker{gen, oracle, check, {}};
    walker.walk(gen.root(), false, {});
    const Walk& seen = walker.seen;
    EXPECT_GT(seen.rejected, seen.openings / 4);
    EXPECT_LT(seen.rejected, seen.openings);
    EXPECT_GT(seen.completing, 0);
  }
}

TEST(OutputShapes, ReachableShapesGrowWithTheOpsLeft) {
  const Program p = load_program("gqa_small");
  const SearchConfig cfg = mirage_config(p);
  const OutputShapes check(p.graph, cfg);
  const std::vector<Shape> loaded{Shape::of({1, 4, 16}), Shape::of({1, 16, 64}), Shape::of({1, 64, 6})};
  EXPECT_EQ(check.reachable(loaded, 0), loaded);
  const std::vector<Shape> one = check.reachable(loaded, 1), two = check.reachable(loaded, 2);
  const auto has = [](const std::vector<Shape>& shapes, const Shape& s) {
    return std::find(shapes.begin(), shapes.end(), s) != shapes.end();
  };
  EXPECT_TRUE(has(one, Shape::of({1, 16, 1})));  // accum_sum_lastdim
  EXPECT_TRUE(has(one, Shape::of({1, 4, 64})));  // matmul
  EXPECT_FALSE(has(one, Shape::of({1, 4, 6})));  // two matmuls
  EXPECT_TRUE(has(two, Shape::of({1, 4, 6})));
  EXPECT_GT(two.size(), one.size());
  for (const Shape& s : one) EXPECT_NE(std::find(two.begin(), two.end(), s), two.end());
  // Each shape once, in the order made (the closure keeps its shapes in a hash set beside the list).
  for (size_t i = 0; i < two.size(); ++i)
    EXPECT_EQ(std::find(two.begin(), two.end(), two[i]) - two.begin(), static_cast<std::ptrdiff_t>(i));
  EXPECT_TRUE(std::equal(one.begin(), one.end(), two.begin()));
}

// The tiles that save an output are listed by dividing the outputs; checked here the other way round:
// a shape of an open-space closure is listed exactly when, multiplied by the grid along a distinct dim
// per axis of size > 1 under an omap of the space, it is an output's shape. Every grid of the space.
TEST(OutputShapes, TheTilesSavingOutputsAreThoseSavesOutputAccepts) {
  const auto saved_is_output = [](const Program& p, const SearchConfig& cfg, const Dim3& grid, const Shape& tile) {
    std::vector<int> axes;
    for (int a = 0; a < 3; ++a)
      if (grid[a] > 1) axes.push_back(a);
    std::vector<int> dims(axes.size(), 0);
    while (true) {
      Axes omap{kNoDim, kNoDim, kNoDim};
      Shape saved = tile;
      uint32_t used = 0;
      bool distinct = true;
      for (size_t k = 0; k < axes.size(); ++k) {
        distinct = distinct && !(used >> dims[k] & 1);
        used |= 1u << dims[k];
        omap[axes[k]] = static_cast<int8_t>(dims[k]);
        saved.d[dims[k]] *= grid[axes[k]];
      }
      for (int32_t out : p.graph.outputs)
        if (distinct && cfg.tries_omap(omap) && p.graph.shape(out) == saved) return true;
      size_t k = 0;
      while (k < dims.size() && ++dims[k] == tile.rank) dims[k++] = 0;
      if (k == dims.size()) return false;
    }
  };
  for (const char* name : {"mha_small", "gated_mlp_small", "rmsnorm_linear_small"}) {
    const Program p = load_program(name);
    SearchConfig cfg;
    resolve(cfg, p.graph);
    const OutputShapes check(p.graph, cfg);
    std::vector<Shape> loaded;
    for (int t = 0; t < p.graph.num_inputs; ++t) loaded.push_back(p.graph.shape(t));
    const std::vector<Shape> shapes = check.reachable(loaded, 3);
    ASSERT_GT(shapes.size(), 8u) << name;
    std::vector<Dim3> grids = cfg.grids;
    grids.push_back({1, 1, 1});
    size_t accepted = 0;
    for (const Dim3& grid : grids) {
      std::vector<Shape> targets;
      check.tiles_saving_outputs(grid, targets);
      for (const Shape& s : shapes) {
        const bool listed = std::find(targets.begin(), targets.end(), s) != targets.end();
        EXPECT_EQ(listed, saved_is_output(p, cfg, grid, s)) << name;
        EXPECT_EQ(listed, check.saves_output(grid, s)) << name;
        accepted += listed;
      }
      for (const Shape& t : targets) EXPECT_TRUE(saved_is_output(p, cfg, grid, t)) << name;
    }
    EXPECT_GT(accepted, 0u) << name;
  }
}

// The open space's op lists fold to every output dim: closures of tens of thousands of shape
// inferences, made at every opening. Past its bound of work the check answers yes, even where the
// whole closure holds no output's shape; within it, it answers as the closure does.
TEST(OutputShapes, PastItsBoundTheCheckAnswersYes) {
  const Program p = load_program("mha_small");  // output [4, 16, 16]
  const Dim3 grid{4, 8, 1};  // its tiles [1, 2, 16] or [1, 16, 2]: no op here makes a dim 2
  const std::vector<Shape> loaded{Shape::of({1, 128, 16}), Shape::of({4, 8, 256})};
  const auto saves = [&](const OutputShapes& check, const std::vector<Shape>& shapes) {
    return std::any_of(shapes.begin(), shapes.end(), [&](const Shape& s) { return check.saves_output(grid, s); });
  };
  const SearchConfig mirage = mirage_config(p);
  const OutputShapes narrow(p.graph, mirage);
  EXPECT_FALSE(saves(narrow, narrow.reachable(loaded, 7)));
  EXPECT_FALSE(narrow.may_save_output(grid, loaded, 7));
  SearchConfig open = space_config(p, Space::Open);
  resolve(open, p.graph);
  open.omaps = mirage.omaps;
  const OutputShapes wide(p.graph, open);
  const std::vector<Shape> all = wide.reachable(loaded, 7);
  EXPECT_GE(all.size(), 32u);
  EXPECT_FALSE(saves(wide, all));
  EXPECT_TRUE(wide.may_save_output(grid, loaded, 7));
}

// The check asks each loaded shape's closure alone first and the whole list's only when none of those
// makes an output's shape; its answer is still the whole closure's. Checked against the closure
// computed here, on lists of shapes from open-space closures of three programs, under every grid of
// the space and 1 to 3 ops: each list asked of a checker that has met the others (memo warm) and of a
// fresh one in reverse order. Lists whose closure passes kMaxShapes are skipped (the check says yes).
TEST(OutputShapes, TheAnswerIsTheWholeClosures) {
  for (const char* name : {"mha_small", "gated_mlp_small", "rmsnorm_linear_small"}) {
    SCOPED_TRACE(name);
    const Program p = load_program(name);
    SearchConfig cfg = space_config(p, Space::Open);
    resolve(cfg, p.graph);
    const OutputShapes warm(p.graph, cfg);
    std::vector<Shape> inputs;
    for (int t = 0; t < p.graph.num_inputs; ++t) inputs.push_back(p.graph.shape(t));
    const std::vector<Shape> pool = warm.reachable(inputs, 1);
    ASSERT_GT(pool.size(), 6u);
    size_t yes = 0, no = 0;
    for (const Dim3& grid : cfg.grids)
      for (size_t i = 0; i < pool.size(); i += 2)
        for (size_t j = i + 1; j < pool.size(); j += 3)
          for (int ops = 1; ops <= 3; ++ops) {
            const std::vector<Shape> loaded{pool[i], pool[j], pool[(i + j) % pool.size()]};
            const std::vector<Shape> closure = warm.reachable(loaded, ops);
            if (closure.size() > 256) continue;
            const bool expected = std::any_of(closure.begin(), closure.end(),
                                              [&](const Shape& s) { return warm.saves_output(grid, s); });
            const OutputShapes fresh(p.graph, cfg);
            const std::vector<Shape> reversed(loaded.rbegin(), loaded.rend());
            const bool asked = warm.may_save_output(grid, loaded, ops);
            if (asked == expected) {
              ++(expected ? yes : no);
            } else {
              EXPECT_TRUE(asked) << "a no where the closure makes an output's shape";  // yes: past the bound
            }
            EXPECT_EQ(fresh.may_save_output(grid, reversed, ops), asked);
          }
    EXPECT_GT(yes, 0u);
    EXPECT_GT(no, 0u);
  }
}

TEST(OutputShapes, ATileSavesAnOutputUnderAnOmapOfTheSpace) {
  const Program p = load_program("gqa_small");  // output [2, 16, 16]
  ASSERT_EQ(p.graph.shape(p.graph.outputs[0]), Shape::of({2, 16, 16}));
  SearchConfig cfg = mirage_config(p);
  const OutputShapes check(p.graph, cfg);
  EXPECT_TRUE(check.saves_output({2, 4, 1}, Shape::of({1, 4, 16})));  // omap [0, 1, -1]
  EXPECT_TRUE(check.saves_output({2, 4, 1}, Shape::of({1, 16, 4})));  // omap [0, 2, -1]
  EXPECT_FALSE(check.saves_output({2, 4, 1}, Shape::of({1, 4, 4})));
  EXPECT_FALSE(check.saves_output({2, 4, 1}, Shape::of({2, 4, 8})));  // [2, 1, -1] fits, not listed
  cfg.omaps.push_back({2, 1, -1});
  const OutputShapes wider(p.graph, cfg);
  EXPECT_TRUE(wider.saves_output({2, 4, 1}, Shape::of({2, 4, 8})));
}

// gated_mlp_small finds μGraphs and its check cuts a few openings; mqa_small's space holds no μGraph
// (docs/search.md) and the check cuts almost half its states.
TEST(OutputShapes, TheCheckChangesNoResultAndCutsStates) {
  for (const auto& [name, cut] : {std::pair{"gated_mlp_small", 0.99}, std::pair{"mqa_small", 0.6}}) {
    SCOPED_TRACE(name);
    const Program p = load_program(name);
    SearchConfig cfg = mirage_config(p);
    cfg.closing_lookahead = 0;  // it cuts most of what this check cuts, and more
    const SearchResult with = test::search(p, cfg, Strategy::Bfs, 2);
    cfg.output_reach = 0;
    const SearchResult without = test::search(p, cfg, Strategy::Bfs, 2);
    EXPECT_EQ(test::hashes(with), test::hashes(without));
    EXPECT_EQ(with.mugraphs.empty(), std::string(name) == "mqa_small");
    EXPECT_LT(with.totals.states, cut * without.totals.states);
  }
}

}  // namespace
}  // namespace ugs::search_detail
