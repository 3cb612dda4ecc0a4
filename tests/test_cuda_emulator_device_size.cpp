// The emulator at the device's block size (tuning::kThreads): the block size decides how the lowering
// splits reductions and which sums go through shuffles, so the plans and agents the H100 runs are
// these, checked here without a GPU (label slow: a host thread per device thread, minutes under tsan).
#include <gtest/gtest.h>

#include "cuda_cases.h"
#include "test_util.h"
#include "tuning.h"
#include "ugs/cuda/emulator.h"

namespace ugs {
namespace {

test::BackendMaker device_sized() {
  return [](const KernelGraph& program, FieldKind field, uint64_t seed) {
    return cuda::make_emulated_backend(program, field, seed, cuda::tuning::kThreads);
  };
}

TEST(CudaEmulatorAtDeviceSize, EverySmallProgramMatchesItselfAsTheCpuSays) {
  test::expect_programs_match_themselves(device_sized());
}

class ReferenceAtDeviceSize : public testing::TestWithParam<const char*> {};

TEST_P(ReferenceAtDeviceSize, ItsPartialStatesAndMutants) {
  test::expect_reference_batch_matches_cpu(GetParam(), GetParam(), true, device_sized());
}

INSTANTIATE_TEST_SUITE_P(Small, ReferenceAtDeviceSize, testing::ValuesIn(test::kReferences));

}  // namespace
}  // namespace ugs
