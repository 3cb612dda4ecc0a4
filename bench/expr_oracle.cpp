// The subexpression oracle on a realistic query stream (bench/oracle_stream.h): queries per second,
// the share decided by the cache, by structure and by z3, z3's mean time per call, and the batch
// path's speedup on 2 threads over 1. Then the same for z3 alone (Mirage's scheme) on a sample of the
// stream's distinct queries, which is what the structural stage saves.
//   bench_expr_oracle [PROGRAM] [--frontier N] [--z3-sample N]      default: rmsnorm_linear_small
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_set>

#include "oracle_stream.h"
#include "ugs/expr/op_expr.h"
#include "ugs/io/program.h"

namespace {

using ugs::expr::ExprId;
using ugs::expr::Oracle;
using ugs::expr::OracleConfig;
using ugs::expr::OracleStats;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void print_stats(const char* what, const OracleStats& s, double secs) {
  const double q = static_cast<double>(s.queries);
  std::printf("%-34s %9lu queries %8.3f s %12.0f q/s | cache %5.1f%%  structure %5.1f%%  z3 %5.1f%% | z3 calls %lu, "
              "unknown %lu, mean %.2f ms\n",
              what, s.queries, secs, q / secs, 100 * s.cache_hits / q, 100 * s.structural / q, 100 * s.z3_calls / q,
              s.z3_calls, s.z3_unknown, s.z3_calls ? 1e3 * s.z3_s / s.z3_calls : 0.0);
}

// The stream replayed level by level through the batch path; returns seconds, counts kept answers.
double replay_batches(ugs::expr::ExprPool& pool, std::span<const ExprId> targets, OracleConfig cfg,
                      const std::vector<std::vector<ExprId>>& levels, OracleStats* stats, size_t* kept) {
  Oracle o(pool, targets, cfg);
  std::vector<uint8_t> ans;
  *kept = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& level : levels) {
    o.is_subexpr_batch(level, ans);
    *kept += static_cast<size_t>(std::count(ans.begin(), ans.end(), 1));
  }
  const double s = seconds_since(t0);
  *stats = o.stats();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string program = "rmsnorm_linear_small";
  ugs::bench::StreamLimits lim;
  size_t z3_sample = 200;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--frontier") && i + 1 < argc) {
      lim.max_frontier = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--z3-sample") && i + 1 < argc) {
      z3_sample = static_cast<size_t>(std::atol(argv[++i]));
    } else {
      program = argv[i];
    }
  }
  const ugs::Program prog = ugs::load_program(program);
  ugs::expr::ExprPool pool;
  const std::vector<ExprId> texprs = ugs::expr::kernel_tensor_exprs(pool, prog.graph);
  std::vector<ExprId> targets;
  for (int32_t o : prog.graph.outputs) targets.push_back(texprs[o]);

  OracleConfig one;
  one.threads = 1;
  Oracle recorder(pool, targets, one);
  const auto t0 = std::chrono::steady_clock::now();
  const ugs::bench::QueryStream stream = ugs::bench::record_stream(pool, recorder, prog.graph, lim);
  const OracleStats rec = recorder.stats();
  std::printf("program %s, target %s\n", program.c_str(), pool.to_string(targets[0], prog.tensor_names).c_str());
  std::printf("stream: %zu queries in %zu levels, %zu distinct; recorded in %.2f s (expressions built, oracle "
              "answering); pool %zu nodes\n\n",
              stream.total(), stream.levels.size(), stream.distinct(), seconds_since(t0), pool.num_nodes());
  print_stats("recording (batch, 1 thread)", rec, seconds_since(t0));

  // One query at a time, as a depth-first driver asks.
  {
    Oracle o(pool, targets, one);
    const auto t1 = std::chrono::steady_clock::now();
    size_t kept = 0;
    for (const auto& level : stream.levels)
      for (ExprId e : level) kept += o.is_subexpr(e);
    const double secs = seconds_since(t1);
    print_stats("one by one (is_subexpr)", o.stats(), secs);
    std::printf("%-34s %.1f%% of queries kept\n", "", 100.0 * kept / stream.total());
  }
  // The batch path, 1 and 2 threads.
  OracleStats s1, s2;
  size_t k1, k2;
  OracleConfig two = one;
  two.threads = 2;
  const double b1 = replay_batches(pool, targets, one, stream.levels, &s1, &k1);
  const double b2 = replay_batches(pool, targets, two, stream.levels, &s2, &k2);
  if (k1 != k2) std::printf("ANSWERS DIFFER between 1 and 2 threads: %zu vs %zu kept\n", k1, k2);
  print_stats("batches per level, 1 thread", s1, b1);
  print_stats("batches per level, 2 threads", s2, b2);
  std::printf("%-34s speedup 2 threads / 1 thread: %.2fx\n\n", "", b1 / b2);

  // The distinct queries alone, one batch: every one decided (no cache), the part threads can share.
  std::vector<ExprId> distinct;
  std::unordered_set<ExprId> seen;
  for (const auto& level : stream.levels)
    for (ExprId e : level)
      if (seen.insert(e).second) distinct.push_back(e);
  const std::vector<std::vector<ExprId>> all_distinct{distinct};
  OracleStats d1, d2;
  size_t dk1, dk2;
  const double db1 = replay_batches(pool, targets, one, all_distinct, &d1, &dk1);
  const double db2 = replay_batches(pool, targets, two, all_distinct, &d2, &dk2);
  print_stats("distinct only, 1 thread", d1, db1);
  print_stats("distinct only, 2 threads", d2, db2);
  std::printf("%-34s speedup 2 threads / 1 thread: %.2fx; %.2f us per decision\n\n", "", db1 / db2,
              1e6 * db1 / static_cast<double>(distinct.size()));

  // z3 alone on a sample of the distinct queries (every one a z3 call).
  std::vector<ExprId> sample;
  for (size_t i = 0; i < z3_sample && i < distinct.size(); ++i) sample.push_back(distinct[i * distinct.size() / z3_sample]);
  OracleConfig z1 = one, z2 = two;
  z1.structural = z2.structural = false;
  const std::vector<std::vector<ExprId>> one_level{sample};
  OracleStats zs1, zs2, st;
  size_t zk1, zk2, sk;
  const double zb1 = replay_batches(pool, targets, z1, one_level, &zs1, &zk1);
  const double zb2 = replay_batches(pool, targets, z2, one_level, &zs2, &zk2);
  print_stats("z3 alone, sample, 1 thread", zs1, zb1);
  print_stats("z3 alone, sample, 2 threads", zs2, zb2);
  std::printf("%-34s speedup 2 threads / 1 thread: %.2fx\n", "", zb1 / zb2);
  // What structure answers on the same sample, for comparison.
  const double sb = replay_batches(pool, targets, one, one_level, &st, &sk);
  print_stats("structure first, sample, 1 thread", st, sb);
  std::printf("%-34s kept of %zu: z3 alone %zu (1 thread) / %zu (2 threads), structure first %zu\n", "",
              sample.size(), zk1, zk2, sk);
  return 0;
}
