// The expression pool and the oracle under OpenMP: concurrent interning gives the serial ids, and the
// batch path answers the same with 1 and 2 threads as one query at a time.
#include <gtest/gtest.h>
#include <omp.h>

#include <random>
#include <vector>

#include "test_util.h"
#include "ugs/expr/op_expr.h"
#include "ugs/expr/oracle.h"
#include "ugs/expr/parse.h"

namespace ugs::expr {
namespace {

// n random expressions over `base`, built with the pool's constructors (what a generator does).
std::vector<ExprId> random_exprs(ExprPool& p, std::vector<ExprId> base, int n, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t sizes[] = {2, 3, 4, 5, 16};
  for (int i = 0; i < n; ++i) {
    const ExprId a = base[rng() % base.size()], b = base[rng() % base.size()];
    const int64_t k = sizes[rng() % 5];
    ExprId r = a;
    switch (rng() % 9) {
      case 0: r = p.add(a, b); break;
      case 1:
      case 2: r = p.mul(a, b); break;
      case 3: r = p.div(a, b); break;
      case 4: r = p.sum(k, a); break;
      case 5: r = p.sum(k, p.mul(a, b)); break;
      case 6: r = p.exp(a); break;
      case 7: r = p.rms(k * 16, a); break;
      case 8: r = p.silu(a); break;
    }
    base.push_back(r);
  }
  return base;
}

TEST(ExprParallel, ConcurrentInterningGivesTheSerialIds) {
  ExprPool p;
  const std::vector<ExprId> vars{p.var(0), p.var(1), p.var(2)};
  std::vector<std::vector<ExprId>> got(4);
#pragma omp parallel for num_threads(2) schedule(static, 1)
  for (int r = 0; r < 4; ++r) got[r] = random_exprs(p, vars, 3000, 7);  // the same terms, raced
  const size_t nodes = p.num_nodes();
  const std::vector<ExprId> serial = random_exprs(p, vars, 3000, 7);
  EXPECT_EQ(p.num_nodes(), nodes);  // nothing new: every term was interned once
  for (const auto& g : got) EXPECT_EQ(g, serial);
}

TEST(ExprParallel, BatchAnswersTheSameWithOneAndTwoThreads) {
  ExprPool p;
  const Program prog = load_program("gqa_small");
  const std::vector<ExprId> pt = kernel_tensor_exprs(p, prog.graph);
  // Two targets: the program's output and one whose denominator is a product of sums, so that some
  // queries need a division structure leaves to the solver.
  const std::vector<ExprId> targets{pt[prog.graph.outputs[0]], parse_expr(p, "Q / ((K + V) * (K + Q))", prog.tensor_names)};
  // A stream with repeats, accepts, rejects and a few queries only the solver takes.
  std::vector<ExprId> stream = random_exprs(p, std::vector<ExprId>(pt.begin(), pt.end()), 400, 11);
  const std::vector<ExprId> more = random_exprs(p, std::vector<ExprId>(pt.begin(), pt.begin() + 3), 400, 12);
  stream.insert(stream.end(), more.begin(), more.end());
  stream.insert(stream.end(), stream.begin(), stream.begin() + 200);
  for (const char* q : {"Q / (K + V)", "Q / (K + Q)", "exp(sum(16, Q*K))", "Q / (V + Q)"})
    stream.push_back(parse_expr(p, q, prog.tensor_names));

  std::vector<uint8_t> one_by_one;
  {
    Oracle o(p, targets);
    for (ExprId e : stream) one_by_one.push_back(o.is_subexpr(e));
  }
  for (int threads : {1, 2}) {
    OracleConfig cfg;
    cfg.threads = threads;
    Oracle o(p, targets, cfg);
    std::vector<uint8_t> ans;
    o.is_subexpr_batch(stream, ans);
    EXPECT_EQ(ans, one_by_one) << threads << " threads";
    const OracleStats s = o.stats();
    EXPECT_EQ(s.queries, stream.size());
    EXPECT_EQ(s.queries, s.cache_hits + s.structural + s.z3_calls + s.undecided);
    EXPECT_GE(s.z3_calls, 1u);
    // A second batch is all cache.
    o.is_subexpr_batch(stream, ans);
    EXPECT_EQ(ans, one_by_one);
    EXPECT_EQ(o.stats().z3_calls, s.z3_calls);
    EXPECT_EQ(o.stats().cache_hits, s.cache_hits + stream.size());
  }
  int kept = 0;
  for (uint8_t a : one_by_one) kept += a;
  EXPECT_GT(kept, 20);
  EXPECT_LT(kept, static_cast<int>(stream.size()) - 100);
}

// Concurrent single queries from several threads (the DFS drivers' pattern) agree with the batch.
TEST(ExprParallel, ConcurrentSingleQueriesAgree) {
  ExprPool p;
  const Program prog = load_program("rmsnorm_linear_small");
  const std::vector<ExprId> pt = kernel_tensor_exprs(p, prog.graph);
  const ExprId target = pt[prog.graph.outputs[0]];
  const std::vector<ExprId> stream = random_exprs(p, {p.var(0), p.var(1)}, 600, 5);
  Oracle serial(p, std::span(&target, 1));
  std::vector<uint8_t> want;
  serial.is_subexpr_batch(stream, want);
  Oracle o(p, std::span(&target, 1));
  std::vector<uint8_t> got(stream.size());
#pragma omp parallel for num_threads(2) schedule(dynamic, 7)
  for (size_t i = 0; i < stream.size(); ++i) got[i] = o.is_subexpr(stream[i]);
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace ugs::expr
