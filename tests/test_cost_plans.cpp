// The three baseline plans (include/ugs/cost/plans.h) of rmsnorm_linear and gqa, kernel by kernel,
// against bytes and times worked out by hand; and the unfused plan is what `estimate` gives a program.
#include <gtest/gtest.h>

#include "test_util.h"
#include "ugs/cost/plans.h"

namespace ugs {
namespace {

constexpr double kTol = 1e-9;
const GpuSpec kH100 = *gpu_preset("h100");

double us(double bytes, double rate) { return bytes / rate * 1e6; }

struct Expected {
  std::string what;
  int64_t blocks, read, write;
};

void expect_kernels(const Cost& c, const std::vector<Expected>& want) {
  ASSERT_EQ(c.kernels, static_cast<int>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    const KernelCounts& k = c.per_kernel[i].counts;
    EXPECT_EQ(k.what, want[i].what) << i;
    EXPECT_EQ(k.blocks, want[i].blocks) << want[i].what;
    EXPECT_EQ(k.dram_read, want[i].read) << want[i].what;
    EXPECT_EQ(k.dram_write, want[i].write) << want[i].what;
  }
}

Cost plan(const char* program, Plan p) { return estimate_plan(load_program(program).graph, p, kH100); }

// X [2, 4096] (16,384 B), W [4096, 6144] (50,331,648 B), O [2, 6144] (24,576 B); the rms of X's two
// rows is [2, 1] (4 B). A kernel holding a reduction runs one block per row: 2 blocks, which draw
// 2 x 50 GB/s = 100 GB/s.
constexpr int64_t kX = 16384, kW = 50'331'648, kO = 24576, kRms = 4;

TEST(CostPlans, RmsnormLinearUnfusedAndAstitch) {
  // rms_norm is one library kernel: X in, N out; then the matmul reads N and W.
  for (Plan p : {Plan::Unfused, Plan::Astitch}) {
    const Cost c = plan("rmsnorm_linear", p);
    expect_kernels(c, {{"rms_norm", 2, kX, kX}, {"matmul", kFullGrid, kX + kW, kO}});
    EXPECT_EQ(c.dram_bytes, 50'405'376);
    EXPECT_EQ(c.smem_bytes, kRms * 2);  // the rms broadcast to the division: written once, read once
    EXPECT_NEAR(c.estimated_us, 2.0 + us(2 * kX, 100e9) + 2.0 + us(kX + kW + kO, 3.35e12), kTol);  // 19.364
  }
}

TEST(CostPlans, RmsnormLinearXlaCutsTheNormalization) {
  // The reduction ends a kernel: the rms goes through device memory and X is read twice.
  const Cost c = plan("rmsnorm_linear", Plan::Xla);
  expect_kernels(c, {{"rms_norm.rms", 2, kX, kRms},
                     {"rms_norm.div", kFullGrid, kX + kRms, kX},
                     {"matmul", kFullGrid, kX + kW, kO}});
  EXPECT_EQ(c.dram_bytes, 50'421'768);
  EXPECT_EQ(c.smem_bytes, 0);
  EXPECT_NEAR(c.estimated_us,
              2.0 + us(kX + kRms, 100e9) + 2.0 + us(2 * kX + kRms, 3.35e12) + 2.0 + us(kX + kW + kO, 3.35e12), kTol);
}

// Q [2, 256, 64] 65,536 B; K, V 1,048,576 B; Q.K, S = exp(Q.K) and P = S / L are [2, 256, 4096]:
// 4,194,304 B; L = reduce_sum(S, 2) is [2, 256, 1]: 1,024 B, 512 rows; O 65,536 B. Every kernel
// saturates device memory (512 rows or a full grid), so each takes 2 µs + its bytes / 3.35 TB/s.
constexpr int64_t kQ = 65536, kKV = 1'048'576, kS = 4'194'304, kL = 1024;

double gqa_time(std::initializer_list<int64_t> kernel_bytes) {
  double t = 0;
  for (int64_t b : kernel_bytes) t += 2.0 + us(static_cast<double>(b), 3.35e12);
  return t;
}

TEST(CostPlans, GqaUnfused) {
  const Cost c = plan("gqa", Plan::Unfused);
  expect_kernels(c, {{"matmul", kFullGrid, kQ + kKV, kS},
                     {"exp", kFullGrid, kS, kS},
                     {"reduce_sum", 512, kS, kL},
                     {"div", kFullGrid, kS + kL, kS},
                     {"matmul", kFullGrid, kS + kKV, kQ}});
  EXPECT_EQ(c.dram_bytes, 31'590'400);
  EXPECT_EQ(c.edges[EdgeClass::Global], 8);
  EXPECT_NEAR(c.estimated_us, gqa_time({kQ + kKV + kS, 2 * kS, kS + kL, 2 * kS + kL, kS + kKV + kQ}), kTol);
}

TEST(CostPlans, GqaXlaFusesExpIntoTheReduction) {
  // exp joins the reduction, which ends the kernel; the division needs S, so S is written and re-read.
  const Cost c = plan("gqa", Plan::Xla);
  expect_kernels(c, {{"matmul", kFullGrid, kQ + kKV, kS},
                     {"exp+reduce_sum", 512, kS, kS + kL},
                     {"div", kFullGrid, kS + kL, kS},
                     {"matmul", kFullGrid, kS + kKV, kQ}});
  EXPECT_EQ(c.dram_bytes, 27'396'096);
  EXPECT_EQ(c.edges[EdgeClass::Local], 1);  // exp -> reduce_sum
  EXPECT_NEAR(c.estimated_us, gqa_time({kQ + kKV + kS, 2 * kS + kL, 2 * kS + kL, kS + kKV + kQ}), kTol);
}

TEST(CostPlans, GqaAstitchStitchesTheSoftmax) {
  // A 4096-element row (8 KiB) fits a block: the row sum reaches the division through shared memory.
  const Cost c = plan("gqa", Plan::Astitch);
  expect_kernels(c, {{"matmul", kFullGrid, kQ + kKV, kS},
                     {"exp+reduce_sum+div", 512, kS, kS},
                     {"matmul", kFullGrid, kS + kKV, kQ}});
  EXPECT_EQ(c.dram_bytes, 19'005'440);
  EXPECT_EQ(c.smem_bytes, kL * 2);
  EXPECT_EQ(c.edges[EdgeClass::Local], 2);     // S -> reduce_sum, S -> div
  EXPECT_EQ(c.edges[EdgeClass::Regional], 1);  // L -> div (broadcast)
  EXPECT_EQ(c.edges[EdgeClass::Global], 5);
  EXPECT_NEAR(c.estimated_us, gqa_time({kQ + kKV + kS, 2 * kS, kS + kKV + kQ}), kTol);  // 11.673
}

TEST(CostPlans, AstitchClosesWhenARowDoesNotFitABlock) {
  // A 1 KiB-per-block GPU: the 8 KiB rows of S no longer fit, so AStitch cuts where XLA does.
  GpuSpec tiny = kH100;
  tiny.smem_per_block = 1024;
  const KernelGraph g = load_program("gqa").graph;
  EXPECT_EQ(estimate_plan(g, Plan::Astitch, tiny).dram_bytes, estimate_plan(g, Plan::Xla, tiny).dram_bytes);
  EXPECT_EQ(estimate_plan(g, Plan::Astitch, tiny).kernels, 4);
}

TEST(CostPlans, NtransStitchesIntoOneKernel) {
  // Both rms_norms and the element-wise ops between them: H, X, alpha in (64 KiB each), O out.
  const Cost c = plan("ntrans", Plan::Astitch);
  ASSERT_EQ(c.kernels, 1);
  EXPECT_EQ(c.per_kernel[0].counts.what, "rms_norm+add+mul+add+rms_norm");
  EXPECT_EQ(c.per_kernel[0].counts.blocks, 8);
  EXPECT_EQ(c.dram_bytes, 4 * 8 * 4096 * 2);
  EXPECT_EQ(plan("ntrans", Plan::Xla).kernels, 3);
  EXPECT_EQ(plan("ntrans", Plan::Unfused).kernels, 5);
}

TEST(CostPlans, UnfusedPlanIsTheProgramAsAKernelGraph) {
  for (const BuiltinProgram& b : builtin_programs()) {
    const KernelGraph g = parse_program(b.json, std::string(b.name)).graph;
    for (const GpuSpec& gpu : {*gpu_preset("h100"), *gpu_preset("a100")}) {
      const Cost plan_cost = estimate_plan(g, Plan::Unfused, gpu), graph_cost = estimate(g, gpu);
      EXPECT_EQ(plan_cost.dram_bytes, graph_cost.dram_bytes) << b.name;
      EXPECT_EQ(plan_cost.kernels, graph_cost.kernels) << b.name;
      EXPECT_DOUBLE_EQ(plan_cost.estimated_us, graph_cost.estimated_us) << b.name;
      // Fusion never adds device-memory traffic or kernels.
      const Cost xla = estimate_plan(g, Plan::Xla, gpu), astitch = estimate_plan(g, Plan::Astitch, gpu);
      EXPECT_LE(astitch.dram_bytes, xla.dram_bytes) << b.name;
      EXPECT_LE(astitch.kernels, xla.kernels) << b.name;
      EXPECT_LE(astitch.dram_bytes, plan_cost.dram_bytes) << b.name;
    }
  }
}

}  // namespace
}  // namespace ugs
