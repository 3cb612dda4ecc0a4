// GPU tests (label gpu): the device kernels against the CPU evaluator, bit for bit. Without a device
// they skip and say why.
#include <gtest/gtest.h>

#include <thread>

#include "cuda_cases.h"
#include "test_util.h"
#include "ugs/cuda/backend.h"
#include "ugs/cuda/device.h"
#include "ugs/util/error.h"
#include "ugs/eval/evaluator.h"
#include "ugs/field/field.h"
#include "ugs/search/generator/verifier.h"

namespace ugs {
namespace {

#define UGS_REQUIRE_DEVICE()                                                             \
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device: " << cuda::device_description()

TEST(Cuda, ReportsWhetherItWasBuiltAndWhatItFound) {
  const std::string d = cuda::device_description();
  EXPECT_FALSE(d.empty());
  if (!cuda::compiled()) {
    EXPECT_EQ(cuda::device_count(), 0);
  }
  std::printf("CUDA compiled: %s, device: %s\n", cuda::compiled() ? "yes" : "no", d.c_str());
}

template <class A>
void matmul_matches_cpu(FieldKind field) {
  for (auto [batch, m, k, n] : {std::array<int, 4>{1, 1, 1, 1}, {2, 16, 256, 16}, {1, 2, 4096, 384}, {3, 7, 33, 65}}) {
    KernelGraph g;
    g.add_input(Shape::of({batch, m, k}));
    g.add_input(Shape::of({batch, k, n}));
    Op op;
    op.kind = OpKind::Matmul;
    op.in = {0, 1};
    g.add_op(op);
    const int32_t out = 2;
    g.set_outputs(std::span(&out, 1));
    const auto in = make_inputs<A>(g, 17);
    const auto want = evaluate(A{}, g, std::span(in));
    std::vector<FieldPair> got(want[0].data.size());
    ASSERT_EQ(cuda::field_matmul(field, in[0].data.data(), in[1].data.data(), got.data(), batch, m, k, n), "");
    EXPECT_EQ(got, want[0].data) << batch << "x" << m << "x" << k << "x" << n;
  }
}

TEST(Cuda, FieldMatmulIsBitIdenticalToTheCpuEvaluator) {
  UGS_REQUIRE_DEVICE();
  matmul_matches_cpu<WideArith>(FieldKind::Wide);
  matmul_matches_cpu<MirageArith>(FieldKind::Mirage);
}

TEST(Cuda, WithoutADeviceTheKernelSaysSo) {
  if (cuda::device_count() > 0) GTEST_SKIP() << "a device is present";
  FieldPair a{1, 1}, b{1, 1}, c{};
  EXPECT_NE(cuda::field_matmul(FieldKind::Wide, &a, &b, &c, 1, 1, 1, 1), "");
}


// --- The fingerprint backend (issue 6): the device against the CPU backend, bit for bit. ---

std::unique_ptr<Backend> cuda_backend(const KernelGraph& program, FieldKind field, uint64_t seed) {
  std::string why;
  auto b = cuda::make_backend(program, field, seed, &why);
  EXPECT_TRUE(b) << why;
  return b;
}

TEST(CudaBackend, WithoutADeviceCudaIsRefusedWithAReasonAndAutoFallsBackToCpu) {
  const KernelGraph p = load_program("rmsnorm_linear_small").graph;
  if (cuda::device_count() > 0) {
    EXPECT_EQ(make_backend(BackendKind::Cuda, p, FieldKind::Wide, 1)->kind(), BackendKind::Cuda);
    EXPECT_EQ(make_backend(BackendKind::Auto, p, FieldKind::Wide, 1)->kind(), BackendKind::Cuda);
    return;
  }
  try {
    make_backend(BackendKind::Cuda, p, FieldKind::Wide, 1);
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA backend here ("), std::string::npos) << e.what();
  }
  EXPECT_EQ(make_backend(BackendKind::Auto, p, FieldKind::Wide, 1)->kind(), BackendKind::Cpu);
  std::string why;
  EXPECT_EQ(cuda::make_backend(p, FieldKind::Wide, 1, &why), nullptr);
  EXPECT_FALSE(why.empty());
}

TEST(CudaBackend, EverySmallProgramMatchesItselfBitForBitWithTheCpu) {
  UGS_REQUIRE_DEVICE();
  test::expect_programs_match_themselves(cuda_backend);
}

TEST(CudaBackend, SmallReferencesTheirPartialStatesAndMutants) {
  UGS_REQUIRE_DEVICE();
  for (const auto& [program, name] : test::every_reference(true))
    test::expect_reference_batch_matches_cpu(program, name, true, cuda_backend);
}

TEST(CudaBackend, FullSizeReferencesAndTheirPartialStates) {
  UGS_REQUIRE_DEVICE();
  for (const auto& [program, name] : test::every_reference(false))
    test::expect_reference_batch_matches_cpu(program, name, false, cuda_backend);
}

TEST(CudaBackend, EvaluatesNothingOnceTheStopIsRaised) {
  UGS_REQUIRE_DEVICE();
  test::expect_nothing_evaluated_once_the_stop_is_raised(cuda_backend);
}

TEST(CudaBackend, RandomGraphsOfEveryPredefinedOp) {
  UGS_REQUIRE_DEVICE();
  test::expect_random_graphs_match_cpu(64, cuda_backend);
}

// Keys made on the device from its element sums, sorted and selected by CUB: the CPU's classes.
TEST(CudaBackend, FunctionClassesAsTheCpuMakesThem) {
  UGS_REQUIRE_DEVICE();
  test::expect_function_classes_match_cpu(cuda_backend);
  const KernelGraph p = load_program("rmsnorm_linear_small").graph;
  const auto gpu = cuda_backend(p, FieldKind::Wide, 1);
  FunctionClasses c;
  gpu->classify_functions({}, {}, {}, c);
  EXPECT_TRUE(c.keys.empty());
}

// Thousands of mixed candidates in one call (fingerprints and function classes): complete and partial,
// block graphs and predefined ops.
TEST(CudaBackend, AMixedBatchOfThousandsOfCandidates) {
  UGS_REQUIRE_DEVICE();
  const KernelGraph p = load_program("rmsnorm_linear_small").graph;
  std::vector<KernelGraph> batch = test::random_graphs(p, 2000, 7);
  for (int copies = 0; copies < 100; ++copies) {
    for (const KernelGraph& g : test::reference_batch("rmsnorm_linear_small", true)) batch.push_back(g);
    batch.push_back(p);
  }
  const auto ptrs = test::pointers(batch);
  const auto cpu = make_cpu_backend(FingerprintSetup::make(p, FieldKind::Wide, 3));
  const auto gpu = cuda_backend(p, FieldKind::Wide, 3);
  ASSERT_TRUE(gpu);
  EXPECT_EQ(test::compare_backends(*cpu, *gpu, ptrs), "");
  EXPECT_EQ(test::compare_classes(*cpu, *gpu, ptrs), "");
}

// The depth-first drivers call from several threads with one graph each.
TEST(CudaBackend, ConcurrentCallersGetTheirOwnResults) {
  UGS_REQUIRE_DEVICE();
  const KernelGraph p = load_program("gqa_small").graph;
  std::vector<KernelGraph> batch = test::reference_batch("gqa_small", true);
  for (const KernelGraph& g : test::random_graphs(p, 40, 5)) batch.push_back(g);
  const auto cpu = make_cpu_backend(FingerprintSetup::make(p, FieldKind::Wide, 8));
  const auto gpu = cuda_backend(p, FieldKind::Wide, 8);
  ASSERT_TRUE(gpu);
  Fingerprints want;
  cpu->fingerprint(test::pointers(batch), want);
  std::vector<std::string> errors(4);
  std::vector<std::thread> pool;
  for (int w = 0; w < 4; ++w)
    pool.emplace_back([&, w] {
      for (size_t i = w; i < batch.size(); i += 4) {
        const KernelGraph* g = &batch[i];
        Fingerprints got;
        gpu->fingerprint(std::span(&g, 1), got);
        const auto h = want.of(i);
        if (got.match[0] != want.match[i] || !std::equal(h.begin(), h.end(), got.hashes.begin()))
          errors[w] += " " + std::to_string(i);
      }
    });
  for (auto& t : pool) t.join();
  for (const std::string& e : errors) EXPECT_EQ(e, "");
}

TEST(CudaBackend, Float64OutputsAsTheCpuEvaluatesThem) {
  UGS_REQUIRE_DEVICE();
  test::expect_float_outputs_match_cpu([](const KernelGraph& program, uint64_t seed) {
    std::string why;
    auto f = cuda::make_float_evaluator(program, seed, &why);
    EXPECT_TRUE(f) << why;
    return f;
  });
}

// Confirmation with a device run: the field tests on the device (one at a time and in bulk) answer
// as the CPU's, for references (equivalent) and their mutants (rejected by a field test).
TEST(CudaBackend, ConfirmationOnTheDeviceAnswersAsOnTheCpu) {
  UGS_REQUIRE_DEVICE();
  for (const char* name : {"rmsnorm_linear_small", "gqa_small"}) {
    SCOPED_TRACE(name);
    const KernelGraph p = load_program(name).graph;
    const auto cpu = make_backend(BackendKind::Cpu, p, FieldKind::Wide, 1);
    const auto gpu = make_backend(BackendKind::Cuda, p, FieldKind::Wide, 1);
    const Verifier on_cpu(p, *cpu, FieldKind::Wide, 1, 3, 1e-9), on_gpu(p, *gpu, FieldKind::Wide, 1, 3, 1e-9);
    const Verifier made_here(p, BackendKind::Auto, FieldKind::Wide, 1, 3, 1e-9);  // all made up front
    ASSERT_TRUE(on_gpu.confirms_on_device());
    ASSERT_TRUE(made_here.confirms_on_device());
    const std::vector<KernelGraph> batch = test::reference_batch(name, true);
    std::vector<uint8_t> passes;
    on_gpu.confirm_field_tests(test::pointers(batch), passes);
    ASSERT_EQ(passes.size(), batch.size() * 3);
    int equivalent = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      const VerifyResult want = on_cpu.confirm(batch[i]), one = on_gpu.confirm(batch[i]),
                         bulk = on_gpu.confirm_with(batch[i], std::span(passes).subspan(i * 3, 3)),
                         ahead = made_here.confirm(batch[i]);
      EXPECT_EQ(made_here.fingerprint_matches(batch[i]), on_cpu.fingerprint_matches(batch[i])) << i;
      for (const VerifyResult* got : {&one, &bulk, &ahead}) {
        EXPECT_EQ(got->equivalent, want.equivalent) << i;
        EXPECT_EQ(got->reason, want.reason) << i;
      }
      equivalent += want.equivalent;
    }
    EXPECT_GE(equivalent, 1) << "the reference itself";
    EXPECT_LT(equivalent, static_cast<int>(batch.size())) << "the mutants are rejected";
  }
}

}  // namespace
}  // namespace ugs
