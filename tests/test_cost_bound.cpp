// --objective best (include/ugs/search/cost_bound.h): the bound is the cost model's own sum, so it
// prices a state's completions exactly and never exceeds what a μGraph below the state costs; a run
// keeps exactly the cheapest μGraphs of the complete run, whatever the strategy.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "search_util.h"
#include "ugs/cost/cost.h"
#include "ugs/expr/op_expr.h"
#include "ugs/expr/oracle.h"
#include "ugs/io/program.h"
#include "ugs/search/cost_bound.h"
#include "ugs/search/generator/generator.h"

namespace ugs {
namespace {

// Small spaces, a second or so each.
const std::pair<const char*, const char*> kSpaces[] = {
    {"rmsnorm_linear_small", R"({"grids": [[6, 1, 1]], "loop_ranges": [1, 4], "max_kernel_ops": 3, "max_block_ops": 7})"},
    {"ntrans_small", R"({"grids": [[4, 1, 1]], "loop_ranges": [1, 4], "max_block_ops": 8, "max_kernel_ops": 6})"},
    {"lora_small", R"({"grids": [[4, 1, 1]], "loop_ranges": [4], "max_block_ops": 8, "max_kernel_ops": 5})"},
};

// A depth-first walk of a space, the path from the root kept.
struct Walk {
  const Generator& gen;
  expr::Oracle& oracle;
  const GpuSpec gpu = *gpu_preset("h100");
  KernelPrices prices, fresh;  // one memo for the whole walk: it must notice where a path leaves the last
  std::vector<State> path;
  size_t states = 0, completed = 0;

  void from(const State& state) {
    if (++states > 200000) return;
    path.push_back(state);
    const double floor = prices.sum_us(state.kernel, gpu);
    ASSERT_DOUBLE_EQ(floor, estimate(state.kernel, gpu).estimated_us);
    std::vector<KernelGraph> done;
    gen.completions(state, done);
    if (!done.empty()) {
      ++completed;
      ASSERT_EQ(estimate(done[0], gpu).estimated_us, floor);  // the same kernels, summed in the same order
      CostBound bound(Objective::Best, 1.0, gpu);
      bound.offer(done[0]);
      for (size_t i = 0; i + 1 < path.size(); ++i)
        ASSERT_EQ(bound.reach(path[i], fresh), CostBound::Reach::All) << "step " << i;
      ASSERT_NE(bound.reach(state, fresh), CostBound::Reach::None);
    }
    std::vector<Step> steps;
    PruneCounts pruned;
    gen.candidates(state, steps, pruned);
    for (const Step& step : steps) {
      if (step.query != kNoQuery && !oracle.is_subexpr(step.query)) continue;
      const State child = gen.apply(state, step);
      const double after = prices.sum_us(child.kernel, gpu);
      if (step.kind == Step::Kind::KernelOp || step.kind == Step::Kind::CloseBlock)
        ASSERT_GE(after, floor + gpu.launch_us);
      else
        ASSERT_EQ(after, floor);
      from(child);
      if (::testing::Test::HasFatalFailure()) return;
    }
    path.pop_back();
  }
};

// Along every path of a space: the remembered prices sum to what the cost model says of the kernel
// graph, a kernel op adds at least a launch, and where a path completes, a bound whose limit is that
// μGraph's cost cuts nothing on the way to it.
TEST(CostBound, PricesCompletionsExactlyAndCutsNothingOnTheWayToAMuGraph) {
  for (const auto& [name, overrides] : kSpaces) {
    SCOPED_TRACE(name);
    const Program p = load_program(name);
    const SearchConfig cfg = test::config_for(p, nlohmann::json::parse(overrides));
    expr::ExprPool pool;
    const Generator gen(p.graph, cfg, pool);
    expr::Oracle oracle(pool, expr::output_exprs(pool, p.graph));
    Walk walk{gen, oracle, *gpu_preset("h100"), {}, {}, {}, 0, 0};
    walk.from(gen.root());
    EXPECT_GT(walk.completed, 5u);
    EXPECT_GT(walk.states, 1000u);
  }
}

// The steps of `state` by a fresh generator with the closing lookahead (its memos empty; the pool and
// oracle shared, so that expressions compare), under `check` when given, and how many signatures the
// lookahead searched for them.
struct Generated {
  std::vector<Step> steps;
  PruneCounts pruned;
  uint64_t signatures = 0;
};
Generated generate(const Program& p, const SearchConfig& cfg, expr::ExprPool& pool, expr::Oracle& oracle,
                   const State& here, const OpeningCut* check, bool warm_memo = false) {
  const Generator gen(p.graph, cfg, pool, &oracle);
  Generated out;
  if (warm_memo) {  // the openings kept, remembered by a call without the bound
    std::vector<Step> unused;
    PruneCounts pruned;
    gen.candidates(here, unused, pruned);
  }
  gen.candidates(here, out.steps, out.pruned, check);
  out.signatures = gen.lookahead_stats().signatures;
  return out;
}

bool same_step(const Step& a, const Step& b) {
  return a.kind == b.kind && a.op == b.op && a.grid == b.grid && a.loop == b.loop && a.inputs == b.inputs &&
         a.omap == b.omap && a.query == b.query;
}

// Under --objective best an opening of the last block graph that the bound cuts is cut before the
// lookahead searches it: the steps kept are exactly those kept without the bound whose opened state
// the bound lets through, fewer signatures are searched, and a limit below every opening searches none.
TEST(CostBound, CutsOpeningsOfTheLastBlockGraphBeforeSearchingThemAhead) {
  const Program p = load_program("ntrans_small");
  SearchConfig cfg = space_config(p, Space::Open);  // the preset has one block graph
  apply_config_json(cfg, nlohmann::json::parse(R"({"grids": [[4, 1, 1], [8, 1, 1]], "loop_ranges": [1, 2],
                                                  "max_block_ops": 8})"), "test");
  resolve(cfg, p.graph);
  // A kernel graph with one block graph closed, whose openings the lookahead is asked about.
  expr::ExprPool pool;
  expr::Oracle oracle(pool, expr::output_exprs(pool, p.graph));
  const Generator probe(p.graph, cfg, pool, &oracle);
  State above;
  std::vector<State> stack{probe.root()};
  while (!stack.empty() && above.kernel.blocks.empty()) {
    const State state = stack.back();
    stack.pop_back();
    std::vector<Step> steps;
    PruneCounts pruned;
    const uint64_t asked = probe.lookahead_stats().signatures + probe.lookahead_stats().answered;
    probe.candidates(state, steps, pruned);
    const bool opens = std::any_of(steps.begin(), steps.end(), [](const Step& st) { return st.kind == Step::Kind::OpenBlock; });
    if (!state.open && !state.kernel.blocks.empty() && opens &&
        probe.lookahead_stats().signatures + probe.lookahead_stats().answered > asked) {
      above = state;
      break;
    }
    for (const Step& st : steps)
      if (st.query == kNoQuery || oracle.is_subexpr(st.query)) stack.push_back(probe.apply(state, st));
  }
  ASSERT_FALSE(above.kernel.blocks.empty());

  const Generated free = generate(p, cfg, pool, oracle, above, nullptr);
  ASSERT_GT(free.signatures, 0u);
  // A limit between the openings' bounds: the median of the openings kept without it.
  const GpuSpec gpu = *gpu_preset("h100");
  KernelPrices prices;
  std::vector<double> opening_us;
  for (const Step& st : free.steps) {
    if (st.kind != Step::Kind::OpenBlock) continue;
    const State opened = probe.apply(above, st);
    opening_us.push_back(prices.sum_us(opened.kernel, gpu) + prices.opening_us(opened, gpu));
  }
  ASSERT_GT(opening_us.size(), 2u);
  std::sort(opening_us.begin(), opening_us.end());
  ASSERT_LT(opening_us.front(), opening_us.back());
  CostBound bound(Objective::Best, 1.0, gpu);
  bound.lower_to(opening_us[opening_us.size() / 2]);
  const BoundedOpenings check(bound, prices);
  for (bool warm : {false, true}) {
    SCOPED_TRACE(warm ? "the openings kept remembered" : "enumerated");
    const Generated cut = generate(p, cfg, pool, oracle, above, &check, warm);
    std::vector<Step> expected;
    for (const Step& st : free.steps)
      if (st.kind != Step::Kind::OpenBlock || bound.reach(probe.apply(above, st), prices) == CostBound::Reach::All)
        expected.push_back(st);
    ASSERT_EQ(cut.steps.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(same_step(cut.steps[i], expected[i])) << i;
    EXPECT_LT(cut.steps.size(), free.steps.size());
    EXPECT_GE(cut.pruned.cost, free.steps.size() - cut.steps.size());
    if (!warm) {
      EXPECT_LT(cut.signatures, free.signatures);
      EXPECT_LE(cut.pruned.reach, free.pruned.reach);
    }
  }
  bound.lower_to(opening_us.front() / 2);
  const Generated none = generate(p, cfg, pool, oracle, above, &check);
  EXPECT_EQ(none.signatures, 0u);
  EXPECT_TRUE(std::none_of(none.steps.begin(), none.steps.end(),
                           [](const Step& st) { return st.kind == Step::Kind::OpenBlock; }));
}

// Every μGraph of the complete run within the factor of its best, and no other: under the bound the
// best is found, and every strategy cuts only what could not be kept.
TEST(Objective, BestKeepsExactlyTheCheapestOfTheCompleteRun) {
  for (const auto& [name, overrides] : kSpaces) {
    SCOPED_TRACE(name);
    const Program p = load_program(name);
    const SearchConfig cfg = test::config_for(p, nlohmann::json::parse(overrides));
    const SearchResult all = test::search(p, cfg, Strategy::Dfs, 1);
    ASSERT_GT(all.mugraphs.size(), 1u);
    for (double within : {1.0, 1.3}) {
      std::set<uint64_t> expected;
      const double limit = all.mugraphs[0].cost.estimated_us * within;
      for (const FoundGraph& f : all.mugraphs)
        if (!CostBound::beyond(f.cost.estimated_us, limit)) expected.insert(f.hash);
      // bfs also under a MiB of frontier: the dive, which lasts the whole run here, goes down in chunks.
      struct Cell {
        Strategy strategy;
        int threads;
        int64_t memory_limit_mib;
      };
      for (auto [strategy, threads, memory_limit_mib] :
           {Cell{Strategy::Dfs, 1, 0}, Cell{Strategy::DfsStatic, 2, 0}, Cell{Strategy::DfsOmp, 2, 0},
            Cell{Strategy::Bfs, 1, 0}, Cell{Strategy::Bfs, 2, 0}, Cell{Strategy::Bfs, 2, 1}}) {
        SCOPED_TRACE(std::string(name_of(strategy)) + " x" + std::to_string(threads) + " within " +
                     std::to_string(within) + " memory limit " + std::to_string(memory_limit_mib));
        RunOptions opt;
        opt.strategy = strategy;
        opt.threads = threads;
        opt.memory_limit_mib = memory_limit_mib;
        opt.objective = Objective::Best;
        opt.within = within;
        const SearchResult best = run_search(p.graph, cfg, opt);
        EXPECT_EQ(test::hashes(best), expected);
        EXPECT_LE(best.totals.states, all.totals.states);
        // The first μGraph confirmed may have been beaten and dropped: never later than the best.
        EXPECT_LE(best.time_to_first_s, best.time_to_best_s);
        if (within == 1.0) {
          EXPECT_GT(best.totals.pruned.cost, 0u);
        }
      }
    }
  }
}

}  // namespace
}  // namespace ugs
