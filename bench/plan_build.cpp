// Host time of the CUDA backend's plan building (cuda/plan.h: build_plan, lowering included) per
// candidate, no device needed. `_small` candidates take so little device time that there the host's
// plan building sets the rate.
//   bench_plan_build [--reps N] [--n N]
//
// For each `_small` program, batches of N candidates (best of reps calls, the plan reused as the
// backends reuse it):
//   program  N copies of the program's graph
//   mugraph  N copies of its reference μGraph (where experiments/mugraphs has one)
//   children distinct candidates as a search's batch holds them: every prefix of the program and of its
//            references, each extended by every predefined op that applies to its tensors, cycled to N
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "plan.h"
#include "tuning.h"
#include "ugs/eval/backend.h"
#include "ugs/io/mugraph_json.h"
#include "ugs/io/program.h"

namespace {

using ugs::KernelGraph;

std::vector<KernelGraph> references_of(const std::string& program) {
  std::vector<KernelGraph> r;
  const std::string dir = std::string(UGS_SOURCE_DIR) + "/experiments/mugraphs/";
  for (const char* suffix : {"", "_loop"}) {
    const std::string path = dir + program + suffix + ".json";
    if (std::filesystem::exists(path)) r.push_back(ugs::load_mugraph(path, ugs::GraphRules{}));
  }
  return r;
}

// g and every kernel-level prefix of it, without outputs.
void add_prefixes(KernelGraph g, std::vector<KernelGraph>& out) {
  g.outputs.clear();
  for (; !g.ops.empty(); g.pop_op()) out.push_back(g);
  out.push_back(g);
}

// Every state extended by each predefined op add_op accepts (every kind, operand pair and dim).
std::vector<KernelGraph> children(const std::vector<KernelGraph>& states) {
  static constexpr ugs::OpKind kKinds[] = {ugs::OpKind::Matmul, ugs::OpKind::Add,    ugs::OpKind::Mul,
                                           ugs::OpKind::Div,    ugs::OpKind::Exp,    ugs::OpKind::Sqrt,
                                           ugs::OpKind::Square, ugs::OpKind::Silu,   ugs::OpKind::ReduceSum,
                                           ugs::OpKind::RmsNorm};
  std::vector<KernelGraph> r;
  for (const KernelGraph& s : states) {
    if (s.ops.full()) continue;
    for (ugs::OpKind kind : kKinds)
      for (int32_t a = 0; a < s.num_tensors(); ++a)
        for (int32_t b = 0; b < (ugs::arity(kind) == 2 ? s.num_tensors() : 1); ++b)
          for (int8_t dim = 0; dim < (kind == ugs::OpKind::ReduceSum ? s.shape(a).rank : 1); ++dim) {
            ugs::Op op;
            op.kind = kind;
            op.dim = dim;
            op.in = {a, ugs::arity(kind) == 2 ? b : -1};
            KernelGraph c = s;
            if (c.add_op(op) == ugs::Verdict::Ok) r.push_back(c);
          }
  }
  return r;
}

std::vector<const KernelGraph*> cycled(const std::vector<KernelGraph>& graphs, int n) {
  std::vector<const KernelGraph*> r;
  for (int i = 0; i < n; ++i) r.push_back(&graphs[i % graphs.size()]);
  return r;
}

// Best µs per candidate of build_plan over the whole batch as one chunk, with the limits the
// device backend uses (its shared-memory limit taken as the H100's 227 KiB).
double us_per_candidate(const ugs::FingerprintSetup& setup, std::span<const KernelGraph* const> batch, int reps,
                        size_t* programs) {
  const ugs::cuda::Resident r = ugs::cuda::resident_on_host(setup);
  uint64_t elems = 0;
  for (const KernelGraph* g : batch) elems += ugs::cuda::computed_elems(*g);
  // Only addresses into it are taken: left untouched (malloc, not a vector's zeroing) to keep the
  // bench's own page faults out of profiles.
  const std::unique_ptr<ugs::FieldPair, decltype(&std::free)> tensors(
      static_cast<ugs::FieldPair*>(std::malloc(elems * sizeof(ugs::FieldPair))), &std::free);
  ugs::cuda::PlanLimits limits;
  limits.threads = ugs::cuda::tuning::kThreads;
  limits.smem_bytes = 227 * 1024;
  limits.compare_chunk = ugs::cuda::tuning::kCompareChunk;
  ugs::cuda::ChunkPlan plan;
  double best = 1e30;
  for (int i = 0; i <= reps; ++i) {  // the first call warms the plan's memory up
    const auto t0 = std::chrono::steady_clock::now();
    ugs::cuda::build_plan(batch, 0, batch.size(), r, tensors.get(), limits, plan);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i > 0) best = std::min(best, s);
  }
  *programs = plan.programs.size();
  return best / double(batch.size()) * 1e6;
}

void row(const std::string& name, const char* what, const ugs::FingerprintSetup& setup,
         std::span<const KernelGraph* const> batch, size_t distinct, int reps) {
  size_t programs = 0;
  const double us = us_per_candidate(setup, batch, reps, &programs);
  size_t ops = 0;
  for (const KernelGraph* g : batch) ops += g->ops.size();
  std::printf("%-22s %-9s %6zu %8zu %7.2f %9zu %9.3f\n", name.c_str(), what, batch.size(), distinct,
              double(ops) / double(batch.size()), programs, us);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5, n = 4096;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--n")) n = std::atoi(argv[++i]);
  }
  std::printf("build_plan on the host, one chunk of N candidates, best of %d calls\n", reps);
  std::printf("%-22s %-9s %6s %8s %7s %9s %9s\n", "program", "batch", "N", "distinct", "ops", "programs", "us/cand");
  for (const ugs::BuiltinProgram& b : ugs::builtin_programs()) {
    const std::string name(b.name);
    if (!name.ends_with("_small")) continue;
    const KernelGraph p = ugs::load_program(name).graph;
    const ugs::FingerprintSetup setup = ugs::FingerprintSetup::make(p, ugs::FieldKind::Wide, 1);
    const std::vector<KernelGraph> refs = references_of(name);
    row(name, "program", setup, std::vector<const KernelGraph*>(n, &p), 1, reps);
    for (const KernelGraph& g : refs) row(name, "mugraph", setup, std::vector<const KernelGraph*>(n, &g), 1, reps);
    std::vector<KernelGraph> states;
    add_prefixes(p, states);
    for (const KernelGraph& g : refs) add_prefixes(g, states);
    const std::vector<KernelGraph> kids = children(states);
    row(name, "children", setup, cycled(kids, n), kids.size(), reps);
  }
  return 0;
}
