// The subexpression oracle: the paper's example, every op output of every reference μGraph, hand-checked
// answers both ways (sizes that are not powers of two among them), the solver stage, the cache, stats.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_util.h"
#include "ugs/expr/op_expr.h"
#include "ugs/expr/oracle.h"
#include "ugs/expr/parse.h"

namespace ugs::expr {
namespace {

const std::vector<std::string> kNames{"X", "Y", "Z", "W", "V", "Q", "K", "A", "B"};

struct Case {
  const char* target;
  const char* query;
  const char* why;
};

// Each checked by hand against the axioms: a representative of the target that contains the query.
const Case kSubexpressions[] = {
    {"X*Z + Y*Z", "X + Y", "the paper's example: (X + Y)*Z"},
    {"X*Z + Y*Z", "Z", "factor"},
    {"X*Z + Y*Z", "Y*Z", "summand"},
    {"X*Z + Y*Z", "Z*X + Z*Y", "reflexive, up to commutativity"},
    {"sum(15, X)", "sum(3, X)", "sum(5, sum(3, X))"},
    {"sum(15, X)", "sum(5, X)", "sum(3, sum(5, X))"},
    {"sum(3, sum(5, X))", "sum(15, X)", "nested sums multiply"},
    {"sum(3, X) * sum(5, Y)", "sum(15, X)", "sum(15, X*Y) = sum(15, X)*Y"},
    {"sum(3, X) * sum(5, Y)", "sum(5, X*Y)", "sum(3, sum(5, X*Y))"},
    {"sum(6, X*Y)", "sum(3, Y)", "sum(2, X)*sum(3, Y)"},
    {"sum(12, X + Y)", "sum(4, X) + sum(4, Y)", "sum(3, sum(4, X + Y))"},
    {"sum(12, X + Y)", "sum(3, X)", "sum(4, sum(3, X)) + sum(12, Y)"},
    {"X/Z + Y/Z", "X + Y", "(X + Y)/Z"},
    {"(X + Y)/Z", "X/Z", "X/Z + Y/Z"},
    {"exp(X + Y) * Z", "exp(X)", "exp(X)*exp(Y)*Z"},
    {"exp(X + Y) * Z", "exp(Y) * Z", "exp(X)*(exp(Y)*Z)"},
    {"exp(X + Y + Z)", "Y + Z", "exp(X + (Y + Z))"},
    {"sqrt(X*Y) * Z", "sqrt(X)", "sqrt(X)*sqrt(Y)*Z"},
    {"sqrt(X*Y)", "Y", "argument"},
    {"X*Y/Z", "X/Z", "Y*(X/Z)"},
    {"X / (Y*Z)", "X/Y", "(X/Y)/Z"},
    {"X / (Y*Z)", "Z", "denominator's factor"},
    {"silu(sum(4, X*W)) * Y", "sum(2, X)", "silu's argument sum(2, sum(2, X)*W)"},
    {"X / rms(256, X)", "rms(256, X)", "denominator"},
    {"sum(384, X / rms(384, X) * W)", "sum(128, X*W)", "sum(3, sum(128, X*W))/rms(384, X), 384 = 3*128"},
    {"sum(384, X / rms(384, X) * W)", "sum(3, X) / rms(384, X)", "sum(128, (sum(3, X)/rms)*W)"},
    {"sum(384, X / rms(384, X) * W)", "sum(384, X*W)", "the division moved past the matmul"},
    {"sum(240, exp(sum(16, Q*K)) / sum(240, exp(sum(16, Q*K))) * V)", "sum(15, exp(sum(16, Q*K)) * V)",
     "attention with 240 = 16*15 keys: a split's partial sum"},
    {"sum(240, exp(sum(16, Q*K)) / sum(240, exp(sum(16, Q*K))) * V)", "sum(48, exp(sum(16, Q*K)))",
     "a partial row sum of the denominator"},
    {"X*Y + X*Z + W", "Y + Z", "X*(Y + Z) + W"},
    {"(X + Y) * (Z + W)", "X + Y", "factor of a product of sums"},
    {"(X + Y) * (Z + W)", "X*Z + Y*Z", "(X + Y)*Z + (X + Y)*W"},
    {"(X + Y) * (Z + W)", "X*Z + X*W", "X*(Z + W) + Y*(Z + W)"},
    {"sum(35, X*Y)", "sum(7, Y)", "sum(5, X)*sum(7, Y)"},
    {"sum(10, X) + sum(15, Y)", "sum(2, X) + sum(3, Y)", "sum(5, sum(2, X) + sum(3, Y))"},
    {"X*X*Y", "X*X", "factor"},
    {"exp(X) / sum(6, exp(X))", "sum(2, exp(X))", "sum(3, sum(2, exp(X))) in the denominator"},
    {"X + Y + Z", "X + Z", "sub-sum"},
    {"sum(9, X) * Y", "sum(3, Y)", "sum(3, X)*sum(3, Y)"},
    {"sum(64, X*W) + sum(16, sum(64, X*A) * B)", "sum(16, X*A)", "LoRA: sum(16, X*A)*sum(64, B)"},
    {"(X + Y)/Z * W", "(X + Y)/Z", "W*((X + Y)/Z)"},
    {"X / (Y + Z)", "Y", "the denominator's summand"},
};

// Each checked by hand: no representative of the target contains the query.
const Case kNotSubexpressions[] = {
    {"X*Z + Y*Z", "X*Y", "the paper's example: X and Y are never multiplied"},
    {"X*Z + Y*Z", "X + Z", "Z is a factor of both summands, never a summand"},
    {"sum(15, X)", "sum(2, X)", "no size has the prime 2"},
    {"sum(15, X)", "sum(9, X)", "9 does not divide 15"},
    {"sum(15, X)", "sum(45, X)", "larger than the whole sum"},
    {"sum(3, X) * sum(5, Y)", "sum(25, X)", "25 does not divide 15"},
    {"sum(12, X + Y)", "sum(8, X)", "8 does not divide 12"},
    {"sum(12, X + Y)", "X*Y", "X and Y are never multiplied"},
    {"X/Z + Y/Z", "X*Y", "degree 2 in a sum of degree 1"},
    {"X/Z + Y", "X + Y", "X is divided by Z, Y is not"},
    {"exp(X + Y)", "exp(X) + exp(Y)", "a product of exps is no sum"},
    {"exp(X + Y)", "exp(X*Y)", "X*Y is no part of X + Y"},
    {"exp(X) * Y", "exp(X*Y)", "Y is outside the exp"},
    {"sqrt(X*Y)", "sqrt(X + Y)", "no sum under the sqrt"},
    {"sqrt(X*Y)", "sqrt(X) + sqrt(Y)", "no sum at all"},
    {"X / (Y*Z)", "Y/Z", "Y is only a divisor"},
    {"X / (Y*Z)", "X*Y", "Y is only a divisor"},
    {"X*Y / Z", "X / (Y*Z)", "Y is never a divisor"},
    {"silu(X) * Y", "silu(Y)", "no silu of Y"},
    {"silu(X + Y)", "silu(X)", "silu's argument is X + Y, whole"},
    {"rms(256, X)", "rms(128, X)", "rms over another length"},
    {"X / rms(384, X)", "sum(3, X)", "no sum"},
    {"sum(384, X / rms(384, X) * W)", "sum(384, X*X)", "X occurs once per summand"},
    {"sum(384, X / rms(384, X) * W)", "sum(768, X*W)", "twice the reduction"},
    {"sum(384, X / rms(384, X) * W)", "X / rms(384, W)", "no rms of W"},
    {"X*X*Y", "X*X*X", "X twice only"},
    {"X*Y*Z", "X*Y + Z", "no sum"},
    {"(X + Y) * (Z + W)", "X + Z", "X and Z are in different factors"},
    {"(X + Y) * (Z + W)", "X*Y", "X and Y are never multiplied"},
    {"sum(240, exp(sum(16, Q*K)) / sum(240, exp(sum(16, Q*K))) * V)", "exp(sum(16, Q*K) + V)", "V is outside the exp"},
    {"sum(240, exp(sum(16, Q*K)) / sum(240, exp(sum(16, Q*K))) * V)", "sum(16, exp(Q*K))", "the exp is of the sum"},
    {"sum(240, exp(sum(16, Q*K)) / sum(240, exp(sum(16, Q*K))) * V)", "sum(32, Q*K)", "32 does not divide 16"},
    {"sum(240, exp(sum(16, Q*K)) / sum(240, exp(sum(16, Q*K))) * V)", "exp(sum(16, Q*K)) * Q", "Q is inside the exp only"},
    {"X + Y + Z", "X*Y", "no product"},
    {"sum(10, X) + sum(15, Y)", "sum(2, X) + sum(5, Y)", "the common factor is 5: sum(2, X) + sum(3, Y)"},
    {"exp(X) / sum(6, exp(X))", "sum(4, exp(X))", "4 does not divide 6"},
    {"X / (Y + Z)", "X / Y", "divided by the whole sum only"},
    {"X / (Y + Z)", "Y*Z", "no product"},
    {"X*Y + Z", "X + Z", "X is bound to Y"},
};

struct Answered {
  bool keep;
  OracleStats stats;
};

Answered ask(const char* target, const char* query, OracleConfig cfg = {}) {
  ExprPool p;
  const ExprId t = parse_expr(p, target, kNames), q = parse_expr(p, query, kNames);
  Oracle o(p, std::span(&t, 1), cfg);
  const bool keep = o.is_subexpr(q);
  return {keep, o.stats()};
}

TEST(Oracle, PaperExample) {
  // Mirage's example: for the target X·Z + Y·Z the prefix X·Y is pruned and X + Y is kept.
  ExprPool p;
  const ExprId t = parse_expr(p, "X*Z + Y*Z", kNames);
  Oracle o(p, std::span(&t, 1));
  EXPECT_FALSE(o.is_subexpr(parse_expr(p, "X*Y", kNames)));
  EXPECT_TRUE(o.is_subexpr(parse_expr(p, "X + Y", kNames)));
  const OracleStats s = o.stats();
  EXPECT_EQ(s.queries, 2u);
  EXPECT_EQ(s.structural, 2u);
  EXPECT_EQ(s.z3_calls, 0u);
}

TEST(Oracle, HandCheckedSubexpressionsAreKept) {
  static_assert(std::size(kSubexpressions) >= 30);
  for (const Case& c : kSubexpressions) {
    const Answered a = ask(c.target, c.query);
    EXPECT_TRUE(a.keep) << c.query << " in " << c.target << " (" << c.why << ")";
    EXPECT_EQ(a.stats.structural, 1u) << c.query << " in " << c.target;
  }
}

TEST(Oracle, HandCheckedNonSubexpressionsArePruned) {
  static_assert(std::size(kNotSubexpressions) >= 30);
  for (const Case& c : kNotSubexpressions) {
    const Answered a = ask(c.target, c.query);
    EXPECT_FALSE(a.keep) << c.query << " in " << c.target << " (" << c.why << ")";
  }
}

// Every tensor and every tile of every reference μGraph (small and full size), checked against its
// program's outputs.
TEST(Oracle, EveryOpOutputOfEveryReferenceIsKept) {
  for (const auto& [program, name] : test::kEveryReference) {
    ExprPool p;
    const Program prog = load_program(program);
    Oracle o(p, output_exprs(p, prog.graph));
    const KernelGraph ref = test::reference(name);
    const std::vector<ExprId> kt = kernel_tensor_exprs(p, ref);
    int checked = 0;
    for (int t = 0; t < ref.num_tensors(); ++t, ++checked)
      EXPECT_TRUE(o.is_subexpr(kt[t])) << name << " tensor " << t << ": " << p.to_string(kt[t], prog.tensor_names);
    for (const BlockGraph& bg : ref.blocks) {
      const std::vector<ExprId> tiles = block_tile_exprs(p, bg, kt);
      for (size_t i = 0; i < tiles.size(); ++i, ++checked)
        EXPECT_TRUE(o.is_subexpr(tiles[i])) << name << " tile " << i << ": " << p.to_string(tiles[i], prog.tensor_names);
    }
    EXPECT_GE(checked, 8) << name;
    EXPECT_EQ(o.stats().z3_calls, 0u) << name << ": decided without the solver";
  }
}

// The solver alone (Mirage's scheme) proves what it can and never refutes a true subexpression.
TEST(Oracle, SolverStageProvesAndKeepsUnknowns) {
  OracleConfig z3only;
  z3only.structural = false;
  const Answered yes = ask("X*Z + Y*Z", "X + Y", z3only);
  EXPECT_TRUE(yes.keep);
  EXPECT_EQ(yes.stats.z3_calls, 1u);
  EXPECT_EQ(yes.stats.z3_unknown, 0u);  // proved: unsat
  const Answered sums = ask("sum(3, X) * sum(5, Y)", "sum(15, X)", z3only);
  EXPECT_TRUE(sums.keep);
  EXPECT_EQ(sums.stats.z3_unknown, 0u);
  // X*Y is no subexpression; quantified axioms rarely let z3 refute it, and then it is kept.
  const Answered no = ask("X*Z + Y*Z", "X*Y", z3only);
  EXPECT_EQ(no.stats.z3_calls, 1u);
  EXPECT_TRUE(!no.keep || no.stats.z3_unknown == 1u);
}

// z3's resource limit applies per call: after calls that exhaust it, the same thread's context still
// proves an easy query.
TEST(Oracle, SolverLimitIsPerCall) {
  ExprPool p;
  const ExprId t = parse_expr(p, "X*Z + Y*Z", kNames);
  OracleConfig z3only;
  z3only.structural = false;
  Oracle o(p, std::span(&t, 1), z3only);
  for (const char* hard : {"X*Y", "X + Z", "Y*Y", "Z*Z + X", "X*Y*Z", "Y + Z", "X*X", "Z + Z"})
    o.is_subexpr(parse_expr(p, hard, kNames));
  const uint64_t unknown = o.stats().z3_unknown;
  EXPECT_GE(unknown, 4u);
  EXPECT_TRUE(o.is_subexpr(parse_expr(p, "X + Y", kNames)));
  EXPECT_EQ(o.stats().z3_unknown, unknown);  // proved, not given up
}

// A division by a sum with a quotient of two summands is left to the solver; the answer keeps it.
TEST(Oracle, StructureHandsDivisionBySumsToTheSolver) {
  const Answered a = ask("X / ((Y + Z) * (Y + W))", "X / (Y + Z)");
  EXPECT_TRUE(a.keep);
  EXPECT_EQ(a.stats.structural, 0u);
  EXPECT_EQ(a.stats.z3_calls, 1u);
  OracleConfig no_z3;
  no_z3.use_z3 = false;
  const Answered b = ask("X / ((Y + Z) * (Y + W))", "X / (Y + Z)", no_z3);
  EXPECT_TRUE(b.keep);
  EXPECT_EQ(b.stats.undecided, 1u);
  EXPECT_EQ(b.stats.z3_calls, 0u);
}

TEST(Oracle, CacheAnswersTheSecondTimeWithoutTheSolver) {
  ExprPool p;
  const ExprId t = parse_expr(p, "X*Z + Y*Z", kNames), q = parse_expr(p, "Y + X", kNames);
  OracleConfig z3only;
  z3only.structural = false;
  Oracle o(p, std::span(&t, 1), z3only);
  EXPECT_TRUE(o.is_subexpr(q));
  EXPECT_EQ(o.stats().z3_calls, 1u);
  EXPECT_TRUE(o.is_subexpr(q));
  EXPECT_TRUE(o.is_subexpr(parse_expr(p, "X + Y", kNames)));  // the same expression, built again
  const OracleStats s = o.stats();
  EXPECT_EQ(s.z3_calls, 1u);
  EXPECT_EQ(s.cache_hits, 2u);
  EXPECT_EQ(s.queries, 3u);
  EXPECT_GT(s.z3_s, 0.0);
}

TEST(Oracle, WithoutTheCacheEveryQueryIsDecidedAnew) {
  ExprPool p;
  const ExprId t = parse_expr(p, "X*Z + Y*Z", kNames), q = parse_expr(p, "Y + X", kNames);
  OracleConfig z3only_uncached;
  z3only_uncached.structural = false;
  z3only_uncached.cache = false;
  Oracle o(p, std::span(&t, 1), z3only_uncached);
  EXPECT_TRUE(o.is_subexpr(q));
  EXPECT_TRUE(o.is_subexpr(q));
  EXPECT_FALSE(o.cached(q).has_value());
  std::vector<ExprId> qs;
  for (const char* e : {"X + Y", "X*Y", "X + Y"}) qs.push_back(parse_expr(p, e, kNames));
  std::vector<uint8_t> ans, cached_ans;
  o.is_subexpr_batch(qs, ans);
  OracleConfig z3only = z3only_uncached;
  z3only.cache = true;
  Oracle(p, std::span(&t, 1), z3only).is_subexpr_batch(qs, cached_ans);
  EXPECT_EQ(ans, cached_ans);  // the same answers; the repeat within the batch is asked again
  const OracleStats s = o.stats();
  EXPECT_EQ(s.queries, 5u);
  EXPECT_EQ(s.cache_hits, 0u);
  EXPECT_EQ(s.z3_calls, 5u);
}

TEST(Oracle, AStoppedBatchKeepsWhatItDidNotAsk) {
  ExprPool p;
  const ExprId t = parse_expr(p, "X*Z + Y*Z", kNames);
  std::vector<ExprId> qs;
  for (const char* e : {"X*Y", "X + Y", "Z*Z"}) qs.push_back(parse_expr(p, e, kNames));
  Oracle o(p, std::span(&t, 1));
  const std::atomic<bool> stop{true};
  std::vector<uint8_t> ans;
  o.is_subexpr_batch(qs, ans, &stop);
  EXPECT_EQ(ans, (std::vector<uint8_t>{1, 1, 1}));  // X*Y would be pruned had it been asked
  const OracleStats s = o.stats();
  EXPECT_EQ(s.undecided, 3u);
  EXPECT_EQ(s.queries, s.cache_hits + s.structural + s.z3_calls + s.undecided);
  EXPECT_FALSE(o.cached(qs[0]).has_value());  // nothing unasked is remembered
  o.is_subexpr_batch(qs, ans);
  EXPECT_EQ(ans, (std::vector<uint8_t>{0, 1, 0}));
}

TEST(Oracle, HugeExpressionsArePrunedAndStatsAddUp) {
  ExprPool p;
  const ExprId t = parse_expr(p, "X*Z + Y*Z", kNames);
  Oracle o(p, std::span(&t, 1));
  EXPECT_FALSE(o.is_subexpr(p.huge()));
  std::vector<ExprId> qs;
  for (const char* q : {"X", "X*Y", "X + Y", "X", "Z*Z", "X + Y"}) qs.push_back(parse_expr(p, q, kNames));
  std::vector<uint8_t> ans;
  o.is_subexpr_batch(qs, ans);
  EXPECT_EQ(ans, (std::vector<uint8_t>{1, 0, 1, 1, 0, 1}));
  const OracleStats s = o.stats();
  EXPECT_EQ(s.queries, 7u);
  EXPECT_EQ(s.cache_hits, 2u);  // the repeats within the batch
  EXPECT_EQ(s.queries, s.cache_hits + s.structural + s.z3_calls + s.undecided);
}

}  // namespace
}  // namespace ugs::expr
