// Abstract expressions: sizes, hash-consing, the normal form against every axiom of docs/design.md §4, the
// pool's limits, printing and parsing, and the op -> expression mapping on the reference μGraphs.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"
#include "ugs/expr/expr.h"
#include "ugs/expr/op_expr.h"
#include "ugs/expr/parse.h"

namespace ugs::expr {
namespace {

TEST(Size, FactorsMultipliesDivides) {
  const Size s240 = *Size::of(240);
  ASSERT_EQ(s240.num_primes(), 3);
  EXPECT_EQ(s240.exponent_of(2), 4u);
  EXPECT_EQ(s240.exponent_of(3), 1u);
  EXPECT_EQ(s240.exponent_of(5), 1u);
  EXPECT_EQ(s240.to_string(), "240");
  EXPECT_TRUE(Size::of(1)->is_one());
  EXPECT_FALSE(Size::of(0).has_value());
  EXPECT_FALSE(Size::of(-4).has_value());
  const Size s15 = *Size::product(*Size::of(3), *Size::of(5));
  EXPECT_EQ(s15, *Size::of(15));
  EXPECT_TRUE(Size::of(5)->divides(s15));
  EXPECT_FALSE(Size::of(9)->divides(s15));
  EXPECT_EQ(s15.quotient(*Size::of(3)), *Size::of(5));
  EXPECT_EQ(Size::of(4099)->to_string(), "4099");  // a prime
  Size big = *Size::of(1 << 30);
  for (int i = 0; i < 3; ++i) big = *Size::product(big, big);
  EXPECT_EQ(big.to_string(), "2^240");
  EXPECT_FALSE(Size::product(big, big).has_value());  // exponent past 255
  EXPECT_FALSE(Size::of(2 * 3 * 5 * 7 * 11 * 13 * 17).has_value());  // seven distinct primes
}

// Factoring and multiplying back gives the number, with primes ascending, for every n the search meets.
TEST(Size, FactorsEveryNumberBackToItself) {
  auto check = [](int64_t n) {
    const std::optional<Size> s = Size::of(n);
    ASSERT_TRUE(s.has_value()) << n;
    EXPECT_EQ(s->value(), n);
    for (int i = 1; i < s->num_primes(); ++i) EXPECT_LT(s->prime(i - 1), s->prime(i)) << n;
  };
  for (int64_t n = 1; n <= 70000; ++n) check(n);
  for (const int64_t n : {int64_t{1} << 62, (int64_t{1} << 40) * 3, int64_t{2147483647}, int64_t{2} * 2147483647,
                          int64_t{4096} * 4099, int64_t{25000001}})
    check(n);
}

// op_expr.cpp keeps each thread's latest answers in front of the pool, keyed by the op, the loop, the
// operands and only the dims of operand 0 that the mapping reads. One pool answers a stream of ops on
// shapes drawn from a few dims, so most answers come from that front while the other dims vary; each
// must print as a fresh pool (an empty front) computes it.
TEST(OpExpr, FrontAnswersAsComputing) {
  ExprPool warm;
  std::mt19937 rng(11);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  auto shape = [&] {
    Shape s;
    s.rank = static_cast<int8_t>(1 + pick(3));
    for (int i = 0; i < s.rank; ++i) s.d[i] = 2 << pick(2);
    return s;
  };
  auto answer = [](ExprPool& p, Level level, const Op& op, const std::array<ExprId, 2>& x,
                   const std::array<Shape, 2>& s, int32_t loop) -> std::string {
    try {
      const ExprId e = level == Level::Kernel ? kernel_op_expr(p, op, x, s) : block_op_expr(p, op, x, s, loop);
      return p.to_string(e);
    } catch (const std::invalid_argument& e) {
      return std::string("throws: ") + e.what();
    }
  };
  for (int trial = 0; trial < 1500; ++trial) {
    Op op;
    op.kind = static_cast<OpKind>(pick(kNumOpKinds - 1));  // every kind but Block
    const std::array<Shape, 2> s{shape(), shape()};
    op.dim = static_cast<int8_t>(pick(s[0].rank));
    op.to = 1 << pick(2);
    const Level level = info(op.kind).where == OpWhere::Both && pick(2) ? Level::Kernel : Level::Block;
    const int32_t loop = 1 << pick(2) * 2;
    ExprPool fresh;
    const std::array<ExprId, 2> xw{warm.var(pick(2)), warm.var(2)}, xf{fresh.var(warm.var_index(xw[0])), fresh.var(2)};
    ASSERT_EQ(answer(warm, level, op, xw, s, loop), answer(fresh, level, op, xf, s, loop))
        << name_of(op.kind) << " dim " << int{op.dim} << " to " << op.to << " loop " << loop << " on "
        << to_string(s[0]) << ", " << to_string(s[1]);
  }
}

class Pool : public ::testing::Test {
 protected:
  ExprPool p;
  const std::vector<std::string> names{"X", "Y", "Z", "W", "V"};
  ExprId e(const char* text) { return parse_expr(p, text, names); }
  std::string str(ExprId x) { return p.to_string(x, names); }
};

TEST_F(Pool, HashConsingGivesOneIdPerTerm) {
  EXPECT_EQ(e("X + Y"), e("Y + X"));
  EXPECT_EQ(p.hash(e("X + Y")), p.hash(e("Y + X")));
  EXPECT_EQ(e("X*Y*Z"), p.mul(p.var(2), p.mul(p.var(1), p.var(0))));
  EXPECT_NE(e("X + Y"), e("X*Y"));
  EXPECT_NE(e("X/Y"), e("Y/X"));
  EXPECT_NE(e("sum(2, X)"), e("sum(3, X)"));
  EXPECT_NE(e("rms(4, X)"), e("rms(8, X)"));
  const size_t n = p.num_nodes();
  e("X*Y*Z + Y/Z");
  const size_t m = p.num_nodes();
  e("Y/Z + X*Y*Z");
  EXPECT_EQ(p.num_nodes(), m);  // nothing new for the same term, summed the other way round
  EXPECT_GT(m, n);
}

// Every equivalence axiom of docs/design.md §4, instantiated with compound x, y, z, has one normal form.
TEST_F(Pool, EveryEquivalenceAxiomHolds) {
  const ExprId x = e("X + sum(3, Y)"), y = e("exp(Z) / W"), z = e("sqrt(Y*V) + X");
  const Size i = *Size::of(6), j = *Size::of(35);
  EXPECT_EQ(p.add(x, y), p.add(y, x));
  EXPECT_EQ(p.mul(x, y), p.mul(y, x));
  EXPECT_EQ(p.add(p.add(x, y), z), p.add(x, p.add(y, z)));
  EXPECT_EQ(p.mul(p.mul(x, y), z), p.mul(x, p.mul(y, z)));
  EXPECT_EQ(p.add(p.mul(x, z), p.mul(y, z)), p.mul(p.add(x, y), z));
  EXPECT_EQ(p.add(p.div(x, z), p.div(y, z)), p.div(p.add(x, y), z));
  EXPECT_EQ(p.mul(x, p.div(y, z)), p.div(p.mul(x, y), z));
  EXPECT_EQ(p.div(p.div(x, y), z), p.div(x, p.mul(y, z)));
  EXPECT_EQ(p.sum(1, x), x);
  EXPECT_EQ(p.sum(i, p.sum(j, x)), p.sum(*Size::product(i, j), x));
  EXPECT_EQ(p.sum(i, p.add(x, y)), p.add(p.sum(i, x), p.sum(i, y)));
  EXPECT_EQ(p.sum(i, p.mul(x, y)), p.mul(p.sum(i, x), y));
  EXPECT_EQ(p.sum(i, p.div(x, y)), p.div(p.sum(i, x), y));
  EXPECT_EQ(p.mul(p.exp(x), p.exp(y)), p.exp(p.add(x, y)));
  EXPECT_EQ(p.mul(p.sqrt(x), p.sqrt(y)), p.sqrt(p.mul(x, y)));
}

TEST_F(Pool, SizesNeedNotBePowersOfTwo) {
  EXPECT_EQ(e("sum(3, sum(5, X))"), e("sum(15, X)"));
  EXPECT_EQ(e("sum(5, sum(3, X))"), e("sum(15, X)"));
  EXPECT_EQ(e("sum(3, X) * sum(5, Y)"), e("sum(15, X*Y)"));
  EXPECT_EQ(e("sum(6, X) * sum(10, Y)"), e("sum(4, sum(15, X*Y))"));
  EXPECT_NE(e("sum(3, sum(5, X))"), e("sum(16, X)"));
}

TEST_F(Pool, NoCancellation) {
  EXPECT_NE(e("X*Y / Y"), e("X"));
  EXPECT_NE(e("X + X"), e("sum(2, X)"));
  EXPECT_NE(e("X / (Y / Z)"), e("X*Z / Y"));  // no axiom turns a divisor's divisor into a factor
  EXPECT_NE(e("sqrt(X) * sqrt(X)"), e("X"));
  EXPECT_EQ(e("sqrt(X) * sqrt(X)"), e("sqrt(X*X)"));
}

TEST_F(Pool, PrintsAndParsesTheNormalForm) {
  for (const char* text : {"X*Z + Y*Z", "sum(256, X*Y) / rms(256, X)", "exp(sum(16, X*Y)) / sum(240, exp(sum(16, X*Y)))",
                           "silu(sum(4, X*W))*Y + sqrt(X*Y)", "(X + Y) / (Z*W) + V", "sum(15, X + Y*Z)"}) {
    const ExprId x = e(text);
    EXPECT_EQ(e(str(x).c_str()), x) << text << " printed as " << str(x);
  }
  EXPECT_EQ(str(e("Y*Z + Z*X")), str(e("X*Z + Y*Z")));
  EXPECT_EQ(p.to_string(p.var(3)), "x3");
  EXPECT_THROW(e("X + "), std::invalid_argument);
  EXPECT_THROW(e("foo(X)"), std::invalid_argument);
  EXPECT_THROW(e("sum(0, X)"), std::invalid_argument);
}

TEST_F(Pool, LimitsGiveHugeAndHugeAbsorbs) {
  ExprId x = e("X + Y + Z + W");
  for (int i = 0; i < 6 && p.kind(x) != ExprKind::Huge; ++i) x = p.mul(x, x);  // 4^2^k summands
  EXPECT_EQ(x, p.huge());
  EXPECT_EQ(p.add(x, e("X")), p.huge());
  EXPECT_EQ(p.exp(x), p.huge());
  EXPECT_EQ(p.sum(3, x), p.huge());
  ExprId d = e("X");
  for (int i = 0; i < 6; ++i) d = p.mul(d, d);  // degree 64 > 32
  EXPECT_EQ(d, p.huge());
  EXPECT_EQ(p.facts(e("(X + Y) * (Z + W)")).max_terms, 4);
  EXPECT_EQ(p.facts(e("X*Y*exp(Z)*exp(W)")).max_degree, 3);
}

TEST_F(Pool, FactsAreMonotoneFeatures) {
  const ExprFacts t = p.facts(e("sum(15, X*Z) / rms(15, X) + Y*Z"));
  EXPECT_TRUE(p.facts(e("sum(5, X)")).within(t));
  EXPECT_TRUE(p.facts(e("rms(15, X)")).within(t));
  EXPECT_FALSE(p.facts(e("W")).within(t));          // a variable t lacks
  EXPECT_FALSE(p.facts(e("exp(X)")).within(t));     // a function symbol t lacks
  EXPECT_FALSE(p.facts(e("sum(2, X)")).within(t));  // a prime t's sizes lack
  EXPECT_FALSE(p.facts(e("rms(3, X)")).within(t));  // an rms atom t lacks
  EXPECT_FALSE(p.facts(e("X + Y + Z")).within(t));  // more summands than any sum of t
}

// The mapping of docs/design.md §4, op by op.
TEST_F(Pool, OpExpressions) {
  auto op = [](OpKind k, int dim = 0, int to = 0) {
    Op o;
    o.kind = k;
    o.in = {0, 1};
    o.dim = static_cast<int8_t>(dim);
    o.to = to;
    return o;
  };
  const ExprId X = e("X"), Y = e("Y");
  const std::vector<ExprId> xy{X, Y};
  const std::vector<Shape> mm{Shape::of({2, 15}), Shape::of({15, 7})}, tile{Shape::of({1, 4, 64}), Shape::of({1, 4, 64})};
  EXPECT_EQ(kernel_op_expr(p, op(OpKind::Matmul), xy, mm), e("sum(15, X*Y)"));
  EXPECT_EQ(kernel_op_expr(p, op(OpKind::Square), xy, mm), e("X*X"));
  EXPECT_EQ(kernel_op_expr(p, op(OpKind::ReduceSum, 1), xy, mm), e("sum(15, X)"));
  EXPECT_EQ(kernel_op_expr(p, op(OpKind::RmsNorm), xy, mm), e("X / rms(15, X)"));
  EXPECT_EQ(kernel_op_expr(p, op(OpKind::Div), xy, mm), e("X / Y"));
  EXPECT_EQ(kernel_op_expr(p, op(OpKind::Silu), xy, mm), e("silu(X)"));
  EXPECT_THROW(kernel_op_expr(p, op(OpKind::AccumSum), xy, mm), std::invalid_argument);
  EXPECT_EQ(block_op_expr(p, op(OpKind::Matmul), xy, mm, 4), e("sum(15, X*Y)"));  // the tile's k
  EXPECT_EQ(block_op_expr(p, op(OpKind::ReduceSumTo, 2, 16), xy, tile, 4), e("sum(4, X)"));
  EXPECT_EQ(block_op_expr(p, op(OpKind::AccumSum), xy, tile, 3), e("sum(3, X)"));
  EXPECT_EQ(block_op_expr(p, op(OpKind::AccumSumLastdim), xy, tile, 3), e("sum(192, X)"));
  EXPECT_EQ(block_op_expr(p, op(OpKind::AccumSumLastdimTo, 0, 16), xy, tile, 3), e("sum(12, X)"));
  EXPECT_EQ(block_op_expr(p, op(OpKind::AccumRmsLastdim), xy, tile, 3), e("rms(192, X)"));
}

// Each reference μGraph computes its program's expression exactly (equal normal forms).
TEST(OpExpr, ReferencesHaveTheirProgramsExpression) {
  for (const auto& [program, name] : test::kEveryReference) {
    ExprPool p;
    const Program prog = load_program(program);
    const KernelGraph ref = test::reference(name);
    const std::vector<ExprId> want = kernel_tensor_exprs(p, prog.graph), got = kernel_tensor_exprs(p, ref);
    ASSERT_EQ(prog.graph.outputs.size(), ref.outputs.size()) << name;
    for (int i = 0; i < ref.outputs.size(); ++i)
      EXPECT_EQ(got[ref.outputs[i]], want[prog.graph.outputs[i]])
          << name << ": " << p.to_string(got[ref.outputs[i]]) << " vs " << p.to_string(want[prog.graph.outputs[i]]);
  }
}

TEST(OpExpr, RmsNormLinearInNormalForm) {
  ExprPool p;
  const Program prog = load_program("rmsnorm_linear_small");
  const std::vector<ExprId> t = kernel_tensor_exprs(p, prog.graph);
  EXPECT_EQ(t[prog.graph.outputs[0]], parse_expr(p, "sum(256, X*W) / rms(256, X)", prog.tensor_names))
      << p.to_string(t[prog.graph.outputs[0]], prog.tensor_names);
}

}  // namespace
}  // namespace ugs::expr
