// What the ranks of a distributed search exchange, without MPI: expressions rebuilt in another
// process's pool (src/search/expr_wire.h) are the same normal forms; states moved between pools get
// the receiver's expressions; the oracle's sharing calls (known_without_z3, learn, the z3 log).
#include <gtest/gtest.h>

#include "search/bfs/rank_exchange.h"
#include "search/distributed/expr_wire.h"
#include "search/distributed/state_wire.h"
#include "test_util.h"
#include "ugs/expr/oracle.h"
#include "ugs/expr/parse.h"
#include "ugs/ir/canonical.h"
#include "ugs/search/generator/generator.h"

namespace ugs {
namespace {

using expr::ExprId;

// States of a small search, depth-first, up to `limit`.
std::vector<State> some_states(const Generator& gen, size_t limit) {
  std::vector<State> stack{gen.root()}, seen;
  while (!stack.empty() && seen.size() < limit) {
    seen.push_back(stack.back());
    stack.pop_back();
    std::vector<Step> steps;
    PruneCounts pruned;
    gen.candidates(seen.back(), steps, pruned);
    for (const Step& st : steps) stack.push_back(gen.apply(seen.back(), st));
  }
  return seen;
}

struct Space {
  Program p = load_program("rmsnorm_linear_small");
  SearchConfig cfg;
  expr::ExprPool pool;
  Space() {
    apply_config_json(cfg, p.search_preset, p.name);
    apply_config_json(cfg, {{"max_kernel_ops", 3}, {"max_block_ops", 7}}, "test");
    resolve(cfg, p.graph);
  }
};

TEST(ExprWire, ExpressionsRebuiltInAnotherPoolAreTheSameNormalForms) {
  Space s;
  const Generator gen(s.p.graph, s.cfg, s.pool);
  std::vector<ExprId> exprs;
  for (const State& st : some_states(gen, 3000)) {
    exprs.insert(exprs.end(), st.kexpr.begin(), st.kexpr.end());
    exprs.insert(exprs.end(), st.bexpr.begin(), st.bexpr.end());
  }
  for (const char* text : {"sum(15, x0*x2) / rms(15, x0) + x1", "exp(x0*x1) / (x2 + sqrt(x0))", "silu(x1)*x0 + x2*x2"})
    exprs.push_back(expr::parse_expr(s.pool, text));
  exprs.push_back(s.pool.sum(int64_t{1} << 40, s.pool.sum(int64_t{1} << 40, s.pool.var(0))));  // 2^80: no int64
  exprs.push_back(s.pool.huge());
  ASSERT_GT(exprs.size(), 1000u);

  search_detail::WireWriter w;
  search_detail::put_exprs(s.pool, exprs, w);
  expr::ExprPool other;
  for (int i = 5; i >= 0; --i) other.exp(other.var(i));  // ids differ from the writer's
  search_detail::WireReader r(w.buf());
  const std::vector<ExprId> back = search_detail::get_exprs(other, r);
  EXPECT_TRUE(r.done());
  ASSERT_EQ(back.size(), exprs.size());
  for (size_t i = 0; i < exprs.size(); ++i) {
    ASSERT_EQ(other.to_string(back[i]), s.pool.to_string(exprs[i])) << i;
    ASSERT_EQ(other.hash(back[i]), s.pool.hash(exprs[i])) << s.pool.to_string(exprs[i]);
  }
  search_detail::WireWriter again;
  search_detail::put_exprs(other, back, again);
  EXPECT_EQ(again.buf(), w.buf());
}

TEST(StateWire, AStateMovedToAnotherPoolGetsThatPoolsExpressions) {
  Space s;
  const Generator gen(s.p.graph, s.cfg, s.pool);
  expr::ExprPool other;
  other.exp(other.var(7));  // ids differ from the writer's
  const Generator there(s.p.graph, s.cfg, other);
  for (const State& st : some_states(gen, 500)) {
    search_detail::Bytes enc;
    search_detail::encode(st, enc);
    search_detail::WireWriter w;
    search_detail::put_state(enc.data(), enc.size(), w);
    search_detail::WireReader r(w.buf());
    State back;
    search_detail::get_state(r, other, back);
    ASSERT_EQ(structural_hash(back.kernel), structural_hash(st.kernel));
    ASSERT_EQ(back.kexpr.size(), st.kexpr.size());
    for (int t = 0; t < st.kexpr.size(); ++t) ASSERT_EQ(other.to_string(back.kexpr[t]), s.pool.to_string(st.kexpr[t]));
    ASSERT_EQ(back.bexpr.size(), st.bexpr.size());
    for (int t = 0; t < st.bexpr.size(); ++t) ASSERT_EQ(other.to_string(back.bexpr[t]), s.pool.to_string(st.bexpr[t]));
  }
}

// bfs over ranks sends children away only where a rank would otherwise run short of work.
TEST(RankRouting, ChildrenStayWithTheirParentsRankOnceTheDepthIsWideAndEven) {
  using search_detail::spreads_children;
  EXPECT_FALSE(spreads_children(1, 1, 1)) << "one process routes nothing";
  EXPECT_TRUE(spreads_children(1, 1, 2)) << "the root's children start on rank 0";
  EXPECT_TRUE(spreads_children(2 * search_detail::kSpreadBelow - 1, search_detail::kSpreadBelow, 2));
  EXPECT_FALSE(spreads_children(10000, 5000, 2));
  EXPECT_FALSE(spreads_children(10000, 6200, 2)) << "within a quarter of the even share";
  EXPECT_TRUE(spreads_children(10000, 6300, 2));
  EXPECT_TRUE(spreads_children(10000, 10000, 2)) << "one rank holds the whole depth";
  EXPECT_TRUE(spreads_children(16000, 1300, 16));
  EXPECT_FALSE(spreads_children(16000, 1200, 16));
}

TEST(WireReader, ATruncatedMessageThrows) {
  search_detail::WireWriter w;
  w.put(uint64_t{7});
  w.put_bytes("abc");
  std::string cut = w.take();
  cut.pop_back();
  search_detail::WireReader r(cut);
  EXPECT_EQ(r.get<uint64_t>(), 7u);
  EXPECT_THROW(r.get_bytes(), std::runtime_error);
}

// Structure off: every uncached query needs z3, which logs its decision; an answer learned from
// elsewhere is a cache hit and costs no z3 call.
TEST(OracleSharing, LearnedAnswersAreCacheHitsAndZ3DecisionsAreLogged) {
  expr::ExprPool pool;
  const ExprId target = expr::parse_expr(pool, "sum(16, x0*x1) / rms(16, x0)");
  expr::OracleConfig cfg;
  cfg.structural = false;
  cfg.log_z3 = true;
  expr::Oracle oracle(pool, std::span(&target, 1), cfg);
  const ExprId asked = expr::parse_expr(pool, "x0*x1"), learned = expr::parse_expr(pool, "x1*x1");
  EXPECT_FALSE(oracle.known_without_z3(asked).has_value());
  EXPECT_TRUE(oracle.is_subexpr(asked));
  std::vector<std::pair<ExprId, bool>> log;
  oracle.take_z3_log(log);
  EXPECT_EQ(log, (std::vector<std::pair<ExprId, bool>>{{asked, true}}));
  oracle.take_z3_log(log);
  EXPECT_EQ(log.size(), 1u);  // taken once
  EXPECT_EQ(oracle.known_without_z3(asked), std::optional<bool>(true));

  oracle.learn(learned, false);
  EXPECT_EQ(oracle.known_without_z3(learned), std::optional<bool>(false));
  EXPECT_FALSE(oracle.is_subexpr(learned));
  EXPECT_EQ(oracle.stats().z3_calls, 1u);
  EXPECT_EQ(oracle.stats().cache_hits, 1u);

  expr::Oracle structural(pool, std::span(&target, 1));  // the structural stage answers without z3
  EXPECT_EQ(structural.known_without_z3(expr::parse_expr(pool, "x2")), std::optional<bool>(false));
}

}  // namespace
}  // namespace ugs
