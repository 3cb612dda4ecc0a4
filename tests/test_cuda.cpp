// GPU tests (label gpu): the device kernels against the CPU evaluator, bit for bit. Without a device
// they skip and say why.
#include <gtest/gtest.h>

#include "test_util.h"
#include "ugs/cuda/device.h"
#include "ugs/eval/evaluator.h"
#include "ugs/field/field.h"

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

}  // namespace
}  // namespace ugs
