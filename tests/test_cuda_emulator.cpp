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

constexpr FieldKind kFields[] = {FieldKind::Wide, FieldKind::Mirage};

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

TEST(CudaEmulator, EverySmallProgramMatchesItselfAsTheCpuSays) {
  for (const std::string& name : test::small_programs()) {
    const KernelGraph p = load_program(name).graph;
    for (FieldKind f : kFields) {
      SCOPED_TRACE(name + " " + std::string(name_of(f)));
      const FingerprintSetup setup = FingerprintSetup::make(p, f, 11);
      const auto cpu = make_cpu_backend(setup);
      for (int threads : {1, 32}) {
        const auto emu = cuda::make_emulated_backend(setup, threads);
        const KernelGraph* g = &p;
        EXPECT_EQ(test::compare_backends(*cpu, *emu, std::span(&g, 1)), "") << threads << " threads";
        Fingerprints fp;
        emu->fingerprint(std::span(&g, 1), fp);
        EXPECT_EQ(fp.match[0], 1);
      }
    }
  }
}

TEST(CudaEmulator, ReferencesTheirPartialStatesAndMutants) {
  for (const char* name : test::kReferences) {
    const KernelGraph p = load_program(name).graph;
    const std::vector<KernelGraph> batch = test::reference_batch(name, true);
    const auto ptrs = test::pointers(batch);
    for (FieldKind f : kFields) {
      SCOPED_TRACE(std::string(name) + " " + std::string(name_of(f)));
      const FingerprintSetup setup = FingerprintSetup::make(p, f, 5);
      const auto cpu = make_cpu_backend(setup);
      const auto emu = cuda::make_emulated_backend(setup, 7);
      EXPECT_EQ(test::compare_backends(*cpu, *emu, ptrs), "");
      Fingerprints fp;
      emu->fingerprint(ptrs, fp);
      EXPECT_EQ(fp.match[0], 1) << "the reference";
      for (size_t i = 1; i < batch.size() && f == FieldKind::Wide; ++i) EXPECT_EQ(fp.match[i], 0) << i;
    }
  }
}

TEST(CudaEmulator, RandomGraphsOfEveryPredefinedOp) {
  for (const std::string& name : test::small_programs()) {
    const KernelGraph p = load_program(name).graph;
    const std::vector<KernelGraph> batch = test::random_graphs(p, 24, 99);
    const auto ptrs = test::pointers(batch);
    for (FieldKind f : kFields) {
      SCOPED_TRACE(name + " " + std::string(name_of(f)));
      const FingerprintSetup setup = FingerprintSetup::make(p, f, 21);
      const auto cpu = make_cpu_backend(setup);
      const auto emu = cuda::make_emulated_backend(setup, 3);
      EXPECT_EQ(test::compare_backends(*cpu, *emu, ptrs), "");
    }
  }
}

// A batch whose tensors exceed the memory budget is cut into chunks (one graph at least per chunk).
TEST(CudaEmulator, ABatchInChunks) {
  const KernelGraph p = load_program("lora_small").graph;
  std::vector<KernelGraph> batch = test::random_graphs(p, 30, 4);
  for (const KernelGraph& g : test::reference_batch("lora_small", true)) batch.push_back(g);
  const auto ptrs = test::pointers(batch);
  const FingerprintSetup setup = FingerprintSetup::make(p, FieldKind::Wide, 2);
  const auto cpu = make_cpu_backend(setup);
  for (uint64_t budget : {uint64_t{1}, uint64_t{5000}, uint64_t{40000}}) {
    const auto emu = cuda::make_emulated_backend(setup, 2, budget);
    EXPECT_EQ(test::compare_backends(*cpu, *emu, ptrs), "") << "budget " << budget;
  }
}

TEST(CudaEmulator, AnEmptyBatchAndAGraphWithoutOps) {
  const KernelGraph p = load_program("rmsnorm_linear_small").graph;
  const FingerprintSetup setup = FingerprintSetup::make(p, FieldKind::Wide, 1);
  const auto cpu = make_cpu_backend(setup);
  const auto emu = cuda::make_emulated_backend(setup, 4);
  EXPECT_EQ(test::compare_backends(*cpu, *emu, {}), "");
  KernelGraph inputs_only;
  for (int i = 0; i < p.num_inputs; ++i) inputs_only.add_input(p.shape(i));
  const KernelGraph* g = &inputs_only;
  EXPECT_EQ(test::compare_backends(*cpu, *emu, std::span(&g, 1)), "");
}

}  // namespace
}  // namespace ugs
