// The CUDA backend's host half without a GPU (label parallel: under tsan, a race between host threads
// is a missing barrier on the device): its lowering, plans and interpreter agent
// run by host threads (ugs/cuda/emulator.h) must give the CPU backend's fingerprints bit for bit, for
// several block sizes. test_cuda runs the same batches on the device.
#include <gtest/gtest.h>

#include <random>

#include "cuda_cases.h"
#include "test_util.h"
#include "ugs/cuda/emulator.h"
#include "ugs/cuda/program.h"

namespace ugs {
namespace {

TEST(CudaPlan, FastDivIsExactBelow2To31) {
  std::mt19937_64 rng(3);
  std::vector<uint32_t> divisors;
  for (uint32_t d = 1; d <= 4100; ++d) divisors.push_back(d);
  for (uint32_t d : {65535u, 65536u, 65537u, 1u << 24, (1u << 24) + 1, (1u << 30) + 3, (1u << 31) - 1}) divisors.push_back(d);
  for (uint32_t d : divisors) {
    const cuda::FastDiv f = cuda::FastDiv::of(d);
    for (uint32_t n : {0u, 1u, d - 1, d, d + 1, 2 * d - 1, (1u << 31) - 1, (1u << 31) - d}) {
      if (n >= (1u << 31)) continue;
      ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
    }
    for (int i = 0; i < 200; ++i) {
      const uint32_t n = static_cast<uint32_t>(rng() >> 33);
      ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
    }
  }
}

test::BackendMaker emulator(int threads) {
  return [threads](const KernelGraph& program, FieldKind field, uint64_t seed) {
    return cuda::make_emulated_backend(program, field, seed, threads);
  };
}

TEST(CudaEmulator, EverySmallProgramMatchesItselfAsTheCpuSays) {
  for (int threads : {1, 32}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    test::expect_programs_match_themselves(emulator(threads));
  }
}

TEST(CudaEmulator, ReferencesTheirPartialStatesAndMutants) {
  for (const auto& [program, name] : test::every_reference(true))
    test::expect_reference_batch_matches_cpu(program, name, true, emulator(3));
}

TEST(CudaEmulator, EvaluatesNothingOnceTheStopIsRaised) { test::expect_nothing_evaluated_once_the_stop_is_raised(emulator(3)); }

TEST(CudaEmulator, RandomGraphsOfEveryPredefinedOp) { test::expect_random_graphs_match_cpu(24, emulator(3)); }

// A batch whose tensors exceed the memory budget is cut into chunks (one graph at least per chunk).
TEST(CudaEmulator, ABatchInChunks) {
  const KernelGraph p = load_program("lora_small").graph;
  std::vector<KernelGraph> batch = test::random_graphs(p, 30, 4);
  for (const KernelGraph& g : test::reference_batch("lora_small", true)) batch.push_back(g);
  const auto ptrs = test::pointers(batch);
  const auto cpu = make_cpu_backend(FingerprintSetup::make(p, FieldKind::Wide, 2));
  for (uint64_t budget : {uint64_t{1}, uint64_t{5000}, uint64_t{40000}}) {
    const auto emu = cuda::make_emulated_backend(p, FieldKind::Wide, 2, 2, budget);
    EXPECT_EQ(test::compare_backends(*cpu, *emu, ptrs), "") << "budget " << budget;
  }
}

// The keys the device makes from its element sums (function_keys.h), then the host's sort: the
// CPU's classes, also when the batch is cut into chunks.
TEST(CudaEmulator, FunctionClassesAsTheCpuMakesThem) {
  test::expect_function_classes_match_cpu(emulator(2));
  const KernelGraph p = load_program("lora_small").graph;
  std::vector<KernelGraph> batch = test::random_graphs(p, 30, 4);
  for (size_t i = 0; i < 30; i += 3) batch.push_back(batch[i]);
  const auto ptrs = test::pointers(batch);
  const auto cpu = make_cpu_backend(FingerprintSetup::make(p, FieldKind::Wide, 2));
  for (uint64_t budget : {uint64_t{1}, uint64_t{5000}}) {
    const auto emu = cuda::make_emulated_backend(p, FieldKind::Wide, 2, 2, budget);
    EXPECT_EQ(test::compare_classes(*cpu, *emu, ptrs), "") << "budget " << budget;
  }
}

// The float64 check's evaluations as the device makes them: the interpreter over doubles in its slots.
TEST(CudaEmulator, Float64OutputsAsTheCpuEvaluatesThem) {
  test::expect_float_outputs_match_cpu(
      [](const KernelGraph& program, uint64_t seed) { return cuda::make_emulated_float_evaluator(program, seed, 3); });
}

TEST(CudaEmulator, AnEmptyBatchAndAGraphWithoutOps) {
  const KernelGraph p = load_program("rmsnorm_linear_small").graph;
  const auto cpu = make_cpu_backend(FingerprintSetup::make(p, FieldKind::Wide, 1));
  const auto emu = cuda::make_emulated_backend(p, FieldKind::Wide, 1, 4);
  EXPECT_EQ(test::compare_backends(*cpu, *emu, {}), "");
  KernelGraph inputs_only;
  for (int i = 0; i < p.num_inputs; ++i) inputs_only.add_input(p.shape(i));
  const KernelGraph* g = &inputs_only;
  EXPECT_EQ(test::compare_backends(*cpu, *emu, std::span(&g, 1)), "");
  EXPECT_EQ(test::compare_classes(*cpu, *emu, {}), "");
  EXPECT_EQ(test::compare_classes(*cpu, *emu, std::span(&g, 1)), "");
}

}  // namespace
}  // namespace ugs
