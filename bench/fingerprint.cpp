// Fingerprint throughput: candidates per second through the CPU backend (2 OpenMP threads) and the
// CUDA backend, each on a batch of N copies of one candidate (the program itself, or its reference
// μGraph), and the fraction of the device's bounds the CUDA backend reaches; then a full-size run's
// setup on the host against the CUDA backend's, made on the device, and a float64 check likewise.
//   bench_fingerprint [--reps N] [--only PROGRAM]   (--only: that program's rows alone, as under a profiler)
//
// Bounds (per candidate; eval/op_count.h counts the field ops, a multiply-add as 2):
//   integer: H100 SXM5, 132 SMs × 1.98 GHz × 64 IMAD lanes = 16.7e12 IMAD slots/s. A field
//            multiply-add works on a pair (x mod p, x mod q): two 32×32→64 multiply-adds, each assumed
//            to take 2 IMAD slots (IMAD.WIDE issues at half rate), so 2 slots per counted op; the
//            folds (DotSum's shift, mask and multiply-add per run of products), the loads' addresses
//            and every other op's cost are left out, so the bound is optimistic: 8.4e12 counted ops/s.
//   memory:  the device-to-device copy's measured bandwidth (the datasheet's HBM3 3.35 TB/s without a
//            device) over the fewest bytes a candidate moves: each kernel op reads each
//            distinct operand tensor once and writes its outputs once (8 bytes an element; replicated
//            block loads assumed to hit L2).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ugs/cuda/backend.h"
#include "ugs/cuda/device.h"
#include "ugs/eval/backend.h"
#include "ugs/eval/op_count.h"
#include "ugs/eval/verify.h"
#include "ugs/io/mugraph_json.h"
#include "ugs/io/program.h"

namespace {

constexpr double kImadSlotsPerSecond = 132 * 64 * 1.98e9;
constexpr double kSlotsPerOp = 2;
double kBytesPerSecond = 3.35e12;  // replaced by the measured copy bandwidth when a device is present

double min_bytes(const ugs::KernelGraph& g) {
  double elems = 0;
  for (int k = 0; k < g.ops.size(); ++k) {
    const ugs::KernelOp& op = g.ops[k];
    const auto in = g.operands(k);
    for (int i = 0; i < in.size(); ++i)
      if (std::find(in.begin(), in.begin() + i, in[i]) == in.begin() + i) elems += double(g.shape(in[i]).numel());
    for (int o = 0; o < op.num_out; ++o) elems += double(g.shape(op.first_out + o).numel());
  }
  return elems * sizeof(ugs::FieldPair);
}

template <class F>
double best_seconds(int reps, F f) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// Best seconds per call of fingerprint on n copies of g.
double seconds_per_call(ugs::Backend& b, const ugs::KernelGraph& g, int n, int reps) {
  const std::vector<const ugs::KernelGraph*> batch(n, &g);
  ugs::Fingerprints fp;
  b.fingerprint(batch, fp);  // warm-up (allocations, first launches)
  if (!fp.match[0]) std::fprintf(stderr, "warning: the candidate does not match its program\n");
  return best_seconds(reps, [&] { b.fingerprint(batch, fp); });
}

struct Workload {
  const char* program;
  const char* graph;  // "program" or a reference μGraph's name
  int cpu_n, cuda_n;
  ugs::FieldKind field;
};

void row(const Workload& w, int reps) {
  const ugs::KernelGraph p = ugs::load_program(w.program).graph;
  const ugs::KernelGraph g = std::strcmp(w.graph, "program") == 0
                                 ? p
                                 : ugs::load_mugraph(std::string(UGS_SOURCE_DIR) + "/experiments/mugraphs/" + w.graph + ".json",
                                                     ugs::GraphRules{});
  const ugs::FingerprintSetup setup = ugs::FingerprintSetup::make(p, w.field, 1);
  omp_set_num_threads(2);
  const auto cpu = ugs::make_cpu_backend(setup);
  const double cpu_rate = w.cpu_n / seconds_per_call(*cpu, g, w.cpu_n, reps);
  const double ops = double(ugs::scalar_ops(g)), bytes = min_bytes(g);
  const double bound_s = std::max(ops * kSlotsPerOp / kImadSlotsPerSecond, bytes / kBytesPerSecond);
  std::printf("%-22s %-8s %-7s %10.3g %10.3g %7.1f", w.program, std::strcmp(w.graph, "program") ? "mugraph" : "program",
              std::string(ugs::name_of(w.field)).c_str(), ops, bytes, bound_s * 1e6);
  std::printf(" %6d %11.4g", w.cpu_n, cpu_rate);
  std::string why;
  const auto gpu = ugs::cuda::make_backend(p, w.field, 1, &why);
  if (!gpu) {
    std::printf("   (CUDA skipped)\n");
    return;
  }
  const double t = seconds_per_call(*gpu, g, w.cuda_n, reps) / w.cuda_n;
  std::printf(" %6d %11.4g %8.1f %9.1f %7.1f%% %7.1f%% %7.2f\n", w.cuda_n, 1 / t, (1 / t) / cpu_rate, t * 1e6,
              100 * ops * kSlotsPerOp / kImadSlotsPerSecond / t, 100 * bytes / kBytesPerSecond / t, t / bound_s);
}


// A run's setup (inputs drawn, the program evaluated on them): on the host, as the CPU backend gets it
// (2 threads), against the CUDA backend's own, made on the device (the CUDA context made beforehand).
void setup_row(const char* program, ugs::FieldKind field, int reps) {
  const ugs::KernelGraph p = ugs::load_program(program).graph;
  omp_set_num_threads(2);
  const double host = best_seconds(reps, [&] { ugs::FingerprintSetup::make(p, field, 1); });
  std::printf("setup %-22s %-7s host %8.4f s", program, std::string(ugs::name_of(field)).c_str(), host);
  std::string why;
  if (!ugs::cuda::make_backend(p, field, 1, &why)) {
    std::printf("   (CUDA skipped)\n");
    return;
  }
  const double device = best_seconds(reps, [&] { ugs::cuda::make_backend(p, field, 1, &why); });
  std::printf("   device %8.4f s   host/device %7.1f\n", device, host / device);
}

// A confirmation's float64 check of a reference μGraph (its candidate evaluated and compared with the
// program's outputs, made beforehand): on the host (2 threads), against the candidate evaluated on the
// device.
void float_check_row(const char* program, int reps) {
  const ugs::KernelGraph p = ugs::load_program(program).graph;
  const ugs::KernelGraph g =
      ugs::load_mugraph(std::string(UGS_SOURCE_DIR) + "/experiments/mugraphs/" + program + ".json", ugs::GraphRules{});
  omp_set_num_threads(2);
  const ugs::VerifyOptions opt;
  const ugs::VerifyReference ref(p, opt);
  ref.prepare_float_check();
  const std::vector<uint8_t> passed(opt.tests, 1);
  const double host = best_seconds(reps, [&] { ref.verify_with(g, passed); });
  std::printf("float64 check %-14s host %8.4f s", program, host);
  std::string why;
  const auto device = ugs::cuda::make_float_evaluator(p, ugs::float_check_seed(opt), &why);
  if (!device) {
    std::printf("   (CUDA skipped)\n");
    return;
  }
  const ugs::VerifyResult on_device = ref.verify_with(g, passed, device.get());
  const double t = best_seconds(reps, [&] { ref.verify_with(g, passed, device.get()); });
  std::printf("   device %8.4f s   host/device %7.1f   (device: %s, error %.2g)\n", t, host / t,
              on_device.equivalent ? "equivalent" : "NOT equivalent", on_device.float_rel_error);
}

// The throughput rows: a batch of N copies of one candidate, on the CPU backend and on the device.
// Full gqa is the searches' workload (an exp per score; an exp counts as one op, so its bound is loose).
constexpr ugs::FieldKind W = ugs::FieldKind::Wide, M = ugs::FieldKind::Mirage;
constexpr Workload kLoads[] = {
    {"rmsnorm_linear_small", "program", 256, 4096, W}, {"rmsnorm_linear_small", "rmsnorm_linear_small", 256, 4096, W},
    {"gated_mlp_small", "program", 64, 2048, W},       {"gated_mlp_small", "gated_mlp_small", 64, 2048, W},
    {"lora_small", "program", 64, 2048, W},            {"lora_small", "lora_small", 64, 2048, W},
    {"gqa_small", "program", 256, 4096, W},            {"gqa_small", "gqa_small", 256, 4096, W},
    {"rmsnorm_linear", "program", 4, 64, W},           {"rmsnorm_linear", "rmsnorm_linear", 4, 64, W},
    {"rmsnorm_linear", "program", 4, 64, M},           {"rmsnorm_linear", "rmsnorm_linear", 4, 64, M},
    {"gqa", "program", 2, 32, W},                      {"gqa", "gqa", 2, 32, W},
};
constexpr const char* kFloatChecked[] = {"rmsnorm_linear", "gated_mlp"};

int usage(const char* why) {
  std::fprintf(stderr, "bench_fingerprint: %s; usage: bench_fingerprint [--reps N (at least 1)] [--only PROGRAM]\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 3;
  const char* only = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else
      return usage((std::string("unknown argument ") + argv[i]).c_str());
  }
  if (reps < 1) return usage("--reps takes a count of at least 1");
  const auto wanted = [&](const char* program) { return !only || !std::strcmp(only, program); };
  const bool any = std::any_of(std::begin(kLoads), std::end(kLoads), [&](const Workload& w) { return wanted(w.program); }) ||
                   std::any_of(std::begin(kFloatChecked), std::end(kFloatChecked), wanted);
  if (!any) return usage((std::string("--only ") + only + " names no program of the bench").c_str());

  std::printf("fingerprint throughput, best of %d calls; CPU backend with 2 threads; device: %s\n", reps,
              ugs::cuda::device_description().c_str());
  const double copy = ugs::cuda::measured_copy_bandwidth();
  if (copy > 0) kBytesPerSecond = copy;
  std::printf("bounds: H100 SXM5 %.3g IMAD slots/s, %.0f slots per counted field op; %.3g B/s (%s)\n",
              kImadSlotsPerSecond, kSlotsPerOp, kBytesPerSecond,
              copy > 0 ? "measured device-to-device copy" : "datasheet HBM3");
  std::printf("%-22s %-8s %-7s %10s %10s %7s %6s %11s %6s %11s %8s %9s %8s %8s %7s\n", "program", "graph", "field",
              "field ops", "min bytes", "bnd us", "cpu N", "cpu cand/s", "gpu N", "gpu cand/s", "speedup", "us/cand",
              "int%", "mem%", "x bound");
  for (const Workload& w : kLoads)
    if (wanted(w.program)) row(w, reps);
  for (const ugs::FieldKind f : {W, M})
    if (wanted("rmsnorm_linear")) setup_row("rmsnorm_linear", f, reps);
  for (const char* program : kFloatChecked)
    if (wanted(program)) float_check_row(program, reps);
  if (ugs::cuda::device_count() == 0) std::printf("CUDA skipped: %s\n", ugs::cuda::device_description().c_str());
  return 0;
}
