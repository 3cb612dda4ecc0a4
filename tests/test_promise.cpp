// How near a bfs state looks to a μGraph (src/search/bfs/promise.h), which orders each batch's
// children: the program's own expression is the most promising, no expression the oracle accepts
// (a subexpression of it) is more, and along a path of accepted ops inside a block graph the promise
// never falls.
#include <gtest/gtest.h>

#include <random>

#include "search/bfs/promise.h"
#include "search_util.h"
#include "ugs/expr/op_expr.h"
#include "ugs/expr/oracle.h"
#include "ugs/io/program.h"
#include "ugs/search/generator/generator.h"

namespace ugs::search_detail {
namespace {

TEST(Promise, NoAcceptedExpressionIsMorePromisingThanTheProgramsOwn) {
  for (const char* name : {"gqa_small", "rmsnorm_linear_small", "gated_mlp_small"}) {
    const Program p = load_program(name);
    const SearchConfig cfg = test::config_for(p);
    expr::ExprPool pool;
    const Generator gen(p.graph, cfg, pool);
    const std::vector<expr::ExprId> targets = expr::output_exprs(pool, p.graph);
    expr::Oracle oracle(pool, targets);
    uint8_t most = 0;
    for (expr::ExprId t : targets) most = std::max(most, expr_promise(pool, t));
    EXPECT_LT(state_promise(pool, gen.root()), most) << name;

    std::mt19937 rng(3);
    size_t accepted = 0, rises = 0;
    std::vector<Step> steps;
    PruneCounts pruned;
    for (int walk = 0; walk < 200; ++walk) {  // random paths of accepted steps from the root
      State state = gen.root();
      for (int depth = 0; depth < 12; ++depth) {
        steps.clear();
        gen.candidates(state, steps, pruned);
        std::erase_if(steps, [&](const Step& st) { return st.query != kNoQuery && !oracle.is_subexpr(st.query); });
        if (steps.empty()) break;
        const Step& step = steps[rng() % steps.size()];
        const uint8_t before = state_promise(pool, state);
        state = gen.apply(state, step);
        const uint8_t after = state_promise(pool, state);
        ASSERT_LE(after, most) << name;
        if (step.kind == Step::Kind::BlockOp) {
          ASSERT_GE(after, before) << name;  // the block graph only gains tiles
          ASSERT_EQ(after, std::max(before, expr_promise(pool, step.query))) << name;
        }
        accepted += step.query != kNoQuery;
        rises += after > before;
      }
    }
    EXPECT_GT(accepted, 100u) << name;
    EXPECT_GT(rises, 10u) << name;  // it tells states apart
  }
}

}  // namespace
}  // namespace ugs::search_detail
