// Evaluator throughput: scalar field ops per second (a multiply-add counts 2; eval/op_count.h) on a
// program and a μGraph, per field and thread count, measured side by side in one run.
//   bench_eval_throughput [PROGRAM MUGRAPH] [--reps N]
// Default: the full-size rmsnorm_linear and its reference μGraph.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include "eval/field_matmul_avx512.h"
#include "ugs/eval/evaluator.h"
#include "ugs/eval/op_count.h"
#include "ugs/eval/real_arith.h"
#include "ugs/field/exp_table.h"
#include "ugs/field/field.h"
#include "ugs/io/mugraph_json.h"
#include "ugs/io/program.h"

namespace {

template <class A>
double best_seconds(const ugs::KernelGraph& g, int threads, int reps) {
  omp_set_num_threads(threads);
  A ar;
  std::vector<uint32_t> exp;  // as the CPU backend and the confirmation evaluate exp: by table
  if constexpr (!std::is_same_v<A, ugs::RealArith>) {
    ar.omega = A::draw_omega(1);
    exp = ugs::exp_table<A>(ar.omega);
    ar.exp_table = exp.data();
  }
  const auto in = ugs::make_inputs<A>(g, 1);
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto out = ugs::evaluate(ar, g, std::span(in));
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (out.empty()) std::abort();
  }
  return best;
}

template <class A>
void row(const char* what, const ugs::KernelGraph& g, int reps, bool avx512 = false) {
  const double ops = static_cast<double>(ugs::scalar_ops(g));
  const double t1 = best_seconds<A>(g, 1, reps), t2 = best_seconds<A>(g, 2, reps);
  const char* matmul = !std::is_same_v<A, ugs::RealArith> && avx512 ? "avx512" : "portable";
  std::printf("%-8s %-8s %-9s %12.3g %10.4f %10.3g %10.4f %10.3g %8.2f\n", std::string(A::name).c_str(), what, matmul,
              ops, t1, ops / t1, t2, ops / t2, t1 / t2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string program = "rmsnorm_linear", mugraph = std::string(UGS_SOURCE_DIR) + "/experiments/mugraphs/rmsnorm_linear.json";
  int reps = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (i + 1 < argc) {
      program = argv[i];
      mugraph = argv[++i];
    }
  }
  const ugs::Program p = ugs::load_program(program);
  const ugs::KernelGraph g = ugs::load_mugraph(mugraph, ugs::GraphRules{});
  std::printf("evaluator throughput: %s (best of %d)\n", program.c_str(), reps);
  std::printf("%-8s %-8s %-9s %12s %10s %10s %10s %10s %8s\n", "field", "graph", "matmul", "scalar ops", "1 thr s",
              "ops/s", "2 thr s", "ops/s", "speedup");
  // The field matmul with AVX-512 where the CPU has it, then the portable loop, side by side; then
  // what a search here would take, chosen per class of tiles by timing both on the μGraph's tiles.
  for (bool avx512 : {true, false}) {
    if (avx512 && !ugs::eval::field_matmul_avx512_available()) continue;
    ugs::eval::set_field_matmul_avx512(avx512);
    row<ugs::WideArith>("program", p.graph, reps, avx512);
    row<ugs::WideArith>("mugraph", g, reps, avx512);
    row<ugs::MirageArith>("program", p.graph, reps, avx512);
    row<ugs::MirageArith>("mugraph", g, reps, avx512);
  }
  ugs::eval::choose_field_matmul_by_timing();
  best_seconds<ugs::WideArith>(g, 2, reps);
  std::printf("the field matmul chosen by timing: %s\n", ugs::eval::field_matmul_choices().c_str());
  row<ugs::RealArith>("program", p.graph, reps);
  row<ugs::RealArith>("mugraph", g, reps);
  return 0;
}
