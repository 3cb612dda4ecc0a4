// The cost model against numbers worked out by hand from its stated rules (include/ugs/cost/*.h):
// the GPU presets, the per-kernel formula, the reference μGraphs' bytes and launches, occupancy, and
// the order of results. The plans are in test_cost_plans.cpp.
#include <gtest/gtest.h>

#include "test_util.h"
#include "ugs/cost/block_counts.h"
#include "ugs/cost/cost.h"
#include "ugs/cost/cost_json.h"
#include "ugs/cost/edges.h"
#include "ugs/cost/plans.h"

namespace ugs {
namespace {

constexpr double kTol = 1e-9;  // µs; every expected time below is the formula evaluated by hand
const GpuSpec kH100 = *gpu_preset("h100");

// Microseconds to move `bytes` at `rate` bytes per second.
double us(double bytes, double rate) { return bytes / rate * 1e6; }

TEST(CostGpu, PresetsHoldTheDatasheetFigures) {
  EXPECT_EQ(kH100.sms, 132);
  EXPECT_EQ(kH100.dram_bytes_per_s, 3.35e12);
  EXPECT_EQ(kH100.tensor_flops_per_s, 989.4e12);
  EXPECT_EQ(kH100.smem_per_block, 227 * 1024);
  EXPECT_EQ(kH100.smem_bytes_per_s, 128.0 * 132 * 1.98e9);  // 32 banks x 4 B per clock per SM
  const GpuSpec a100 = *gpu_preset("a100");
  EXPECT_EQ(a100.sms, 108);
  EXPECT_EQ(a100.dram_bytes_per_s, 2.039e12);
  EXPECT_EQ(a100.tensor_flops_per_s, 312e12);
  EXPECT_EQ(a100.smem_per_block, 163 * 1024);
  EXPECT_FALSE(gpu_preset("v100").has_value());
  EXPECT_EQ(gpu_names().size(), 2u);
}

TEST(CostFormula, RooflinePerKernelWithIdleSms) {
  KernelCounts k;
  k.blocks = 33;  // a quarter of the H100's SMs
  k.dram_read = 1'000'000;
  k.dram_write = 650'000;
  k.smem = 4'000'000;
  k.mma_flops = 989'400'000;
  // Device memory: min(3.35e12, 33 x 50e9 = 1.65e12) = 1.65e12 B/s -> 1.65e6 B take 1 µs.
  // Shared memory: 4e6 B / (33.454e12 x 0.25) = 0.47828 µs. Compute: 989.4e6 / 989.4e12 / 0.25 = 4 µs.
  const KernelCost c = price_kernel(k, kH100);
  EXPECT_NEAR(c.dram_us, 1.0, kTol);
  EXPECT_NEAR(c.smem_us, us(4e6, kH100.smem_bytes_per_s * 0.25), kTol);
  EXPECT_NEAR(c.compute_us, 4.0, kTol);
  EXPECT_EQ(c.bound, Bound::Compute);
  EXPECT_NEAR(c.total_us, 2.0 + 4.0, kTol);

  k.blocks = kFullGrid;  // a library kernel fills the GPU: compute 1 µs, device memory 1.65e6 / 3.35e12
  const KernelCost full = price_kernel(k, kH100);
  EXPECT_NEAR(full.compute_us, 1.0, kTol);
  EXPECT_NEAR(full.dram_us, us(1.65e6, 3.35e12), kTol);
  EXPECT_NEAR(full.total_us, 3.0, kTol);
}

TEST(CostEdges, ClassesFollowAStitch) {
  const Shape row = Shape::of({2, 64}), col = Shape::of({2, 1});
  EXPECT_EQ(classify(access_of(OpKind::Exp), row, row), EdgeClass::Local);         // one-to-one
  EXPECT_EQ(classify(access_of(OpKind::Div), col, row), EdgeClass::Regional);      // broadcast
  EXPECT_EQ(classify(access_of(OpKind::ReduceSum), row, col), EdgeClass::Local);   // partial sums
  EXPECT_EQ(classify(access_of(OpKind::AccumSum), row, row), EdgeClass::Local);
  EXPECT_EQ(classify(access_of(OpKind::Matmul), row, row), EdgeClass::Regional);   // shared tile
}

// RMSNorm+Linear, one block graph: grid 96, loop 64. X [2, 4096] is replicated (imap φ) and walked by
// the loop in [2, 64] tiles; W [4096, 6144] is split 96 ways by columns and 64 ways by rows.
TEST(CostReferences, RmsnormLinearBytesByHand) {
  const Cost c = estimate(test::reference("rmsnorm_linear"), kH100);
  ASSERT_EQ(c.kernels, 1);
  const KernelCounts& k = c.per_kernel[0].counts;
  EXPECT_EQ(k.blocks, 96);
  EXPECT_EQ(k.dram_read, 2 * 4096 * 2 * 96 + 4096 * 6144 * 2);  // 1,572,864 + 50,331,648
  EXPECT_EQ(k.dram_write, 2 * 6144 * 2);                        // 24,576
  EXPECT_EQ(c.dram_bytes, 51'929'088);
  EXPECT_EQ(c.dram_unique_bytes, 2 * 4096 * 2 + 4096 * 6144 * 2 + 2 * 6144 * 2);
  // Shared memory per block: X tile 256 B loaded 64 times and read by accum_rms and matmul 64 times
  // each: 256 x 192; W tile 8192 B loaded and read 64 times: 8192 x 128; the rms [2, 1] (4 B) is
  // broadcast to the division once: 4 x 2. Matmul -> accum_sum -> div are local.
  EXPECT_EQ(k.smem, (256 * 192 + 8192 * 128 + 8) * 96);
  EXPECT_EQ(k.mma_flops, int64_t{2} * 2 * 4096 * 6144);
  // accum_rms 2 x 128 and accum_sum 128 per iteration, the division 128 once: (384 x 64 + 128) x 96.
  EXPECT_EQ(k.vector_flops, (384 * 64 + 128) * 96);
  EXPECT_EQ(k.edges[EdgeClass::Global], 3);    // two loaders, one saver
  EXPECT_EQ(k.edges[EdgeClass::Regional], 4);  // X -> accum_rms, X -> matmul, W -> matmul, rms -> div
  EXPECT_EQ(k.edges[EdgeClass::Local], 2);     // matmul -> accum_sum -> div
  // 96 blocks draw 96 x 50 GB/s > 3.35 TB/s: device memory is saturated and bounds the kernel.
  EXPECT_EQ(c.per_kernel[0].bound, Bound::Dram);
  EXPECT_NEAR(c.estimated_us, 2.0 + us(51'929'088, 3.35e12), kTol);
}

// GatedMLP: grid 64, loop 64; X [8, 4096] replicated 64 times, W1 and W2 [4096, 4096] read once.
// LoRA: grid 64, loop 4; X [16, 256] and A [256, 16] replicated 64 times, W [256, 4096] and
// B [16, 4096] read once (B's fmap is φ: loaded once, kept across the loop).
TEST(CostReferences, GatedMlpAndLoraBytesByHand) {
  const Cost mlp = estimate(test::reference("gated_mlp"), kH100);
  EXPECT_EQ(mlp.kernels, 1);
  EXPECT_EQ(mlp.dram_bytes, 8 * 4096 * 2 * 64 + 2 * 4096 * 4096 * 2 + 8 * 4096 * 2);  // 71,368,704
  // 64 blocks draw at most 64 x 50 GB/s = 3.2 TB/s, below the H100's 3.35 TB/s.
  EXPECT_NEAR(mlp.estimated_us, 2.0 + us(71'368'704, 64 * 50e9), kTol);

  const Cost lora = estimate(test::reference("lora"), kH100);
  EXPECT_EQ(lora.kernels, 1);
  EXPECT_EQ(lora.per_kernel[0].counts.dram_read, 16 * 256 * 2 * 64 + 256 * 4096 * 2 + 256 * 16 * 2 * 64 + 16 * 4096 * 2);
  EXPECT_EQ(lora.dram_bytes, 3'276'800 + 16 * 4096 * 2);
  EXPECT_NEAR(lora.estimated_us, 2.0 + us(3'407'872, 64 * 50e9), kTol);
}

// GQA, FlashDecoding: block graph 1 has grid (2, 16, 4), loop 4: x splits the batch, y the 4096 keys,
// z the 256 query rows. Q is loaded by all 16 y-blocks, K and V by all 4 z-blocks. It saves the row
// sums [2, 256, 16] and the partial outputs [2, 256, 1024]. Block graph 2 (grid (2, 16, 1)) reads
// both once and writes O [2, 256, 64].
TEST(CostReferences, GqaBytesByHand) {
  const Cost c = estimate(test::reference("gqa"), kH100);
  ASSERT_EQ(c.kernels, 2);
  const KernelCounts& k1 = c.per_kernel[0].counts;
  const KernelCounts& k2 = c.per_kernel[1].counts;
  const int64_t q = 2 * 256 * 64 * 2, kv = 2 * 64 * 4096 * 2;  // 65,536 and 1,048,576
  const int64_t sums = 2 * 256 * 16 * 2, partial = 2 * 256 * 1024 * 2, o = q;
  EXPECT_EQ(k1.blocks, 128);
  EXPECT_EQ(k1.dram_read, q * 16 + kv * 4 + kv * 4);  // 9,437,184
  EXPECT_EQ(k1.dram_write, sums + partial);           // 1,064,960
  EXPECT_EQ(k2.blocks, 32);
  EXPECT_EQ(k2.dram_read, sums + partial);
  EXPECT_EQ(k2.dram_write, o);
  EXPECT_EQ(c.dram_bytes, 11'632'640);
  EXPECT_EQ(c.dram_unique_bytes, q + 2 * kv + 2 * (sums + partial) + o);  // 4,358,144
  // Per block of graph 1, all tiles [1, 64, 64] = 8 KiB: Q loaded once, read by the matmul 4 times;
  // K and V loaded and read 4 times; exp(Q.K) written and read by the second matmul 4 times.
  EXPECT_EQ(k1.smem, 8192 * (5 + 8 + 8 + 8) * 128);
  // Graph 2 per block: sums tile [1, 16, 16] and partial tile [1, 16, 1024] loaded and read once;
  // the row sum [1, 16, 1] broadcast to the division once.
  EXPECT_EQ(k2.smem, (512 * 2 + 32768 * 2 + 32 * 2) * 32);
  EXPECT_EQ(c.edges[EdgeClass::Global], 8);
  EXPECT_EQ(c.edges[EdgeClass::Regional], 7);
  EXPECT_EQ(c.edges[EdgeClass::Local], 5);
  // Graph 1: 128 blocks saturate device memory. Graph 2: 32 blocks draw 32 x 50 GB/s = 1.6 TB/s.
  EXPECT_NEAR(c.estimated_us, 2.0 + us(9'437'184 + 1'064'960, 3.35e12) + 2.0 + us(1'064'960 + o, 1.6e12), kTol);
}

// exp over X [1024, 256] as one block graph of `blocks` blocks, each exp-ing its rows once (loop 1).
KernelGraph exp_graph(int32_t blocks) {
  KernelGraph g;
  EXPECT_EQ(g.add_input(Shape::of({1024, 256})), Verdict::Ok);
  BlockGraph bg;
  bg.grid = {blocks, 1, 1};
  EXPECT_EQ(bg.add_input(0, g.shape(0), {0, kNoDim, kNoDim}, kNoDim), Verdict::Ok);
  Op e{OpKind::Exp};
  e.in = {0, -1};
  Op acc{OpKind::AccumSum};
  acc.in = {1, -1};
  EXPECT_EQ(bg.add_op(e), Verdict::Ok);
  EXPECT_EQ(bg.add_op(acc), Verdict::Ok);
  EXPECT_EQ(bg.add_output(2, {0, kNoDim, kNoDim}), Verdict::Ok);
  EXPECT_EQ(g.add_block(bg, GraphRules{}), Verdict::Ok);
  const int32_t out = 1;
  EXPECT_EQ(g.set_outputs(std::span(&out, 1)), Verdict::Ok);
  return g;
}

TEST(CostOccupancy, TooFewBlocksLeaveSmsIdle) {
  // The same bytes either way: 512 KiB read, 512 KiB written.
  const Cost few = estimate(exp_graph(32), kH100), full = estimate(exp_graph(256), kH100);
  EXPECT_EQ(few.dram_bytes, 1'048'576);
  EXPECT_EQ(full.dram_bytes, 1'048'576);
  // 32 blocks draw 32 x 50 GB/s = 1.6 TB/s; 256 blocks saturate 3.35 TB/s.
  EXPECT_NEAR(few.estimated_us, 2.0 + us(1'048'576, 1.6e12), kTol);
  EXPECT_NEAR(full.estimated_us, 2.0 + us(1'048'576, 3.35e12), kTol);
  EXPECT_GT(few.estimated_us, full.estimated_us);
}

TEST(CostOccupancy, RegriddedRmsnormLinearIsSlowerBelowTheSmCount) {
  nlohmann::json j = test::reference_json("rmsnorm_linear");
  auto regrid = [&](int blocks) {
    j["kernels"][0]["grid"] = {blocks, 1, 1};
    return estimate(mugraph_from_json(j, "regridded", GraphRules{}), kH100);
  };
  const Cost few = regrid(24), full = regrid(192);
  // 24 blocks replicate X 24 times and draw 1.2 TB/s; 192 blocks replicate it 192 times at 3.35 TB/s.
  EXPECT_EQ(few.dram_bytes, 16384 * 24 + 50'331'648 + 24'576);
  EXPECT_EQ(full.dram_bytes, 16384 * 192 + 50'331'648 + 24'576);
  EXPECT_NEAR(few.estimated_us, 2.0 + us(50'749'440, 1.2e12), kTol);   // 44.29 µs
  EXPECT_NEAR(full.estimated_us, 2.0 + us(53'501'952, 3.35e12), kTol);  // 17.97 µs
  EXPECT_GT(few.estimated_us, full.estimated_us);  // although it moves fewer bytes
}

// Each reference is what a search of its program is for: faster than all three of the program's own
// plans, not just the unfused one (a μGraph can beat the unfused plan and still lose to a fused one).
TEST(CostReferences, EveryReferenceBeatsEveryPlanOfItsProgram) {
  for (const GpuSpec& gpu : {*gpu_preset("h100"), *gpu_preset("a100")}) {
    for (const auto& [program, name] : test::kEveryReference) {
      const Program p = load_program(program);
      const Cost fused = estimate(test::reference(name), gpu);
      for (Plan plan : kPlans)
        EXPECT_LT(fused.estimated_us, estimate_plan(p.graph, plan, gpu).estimated_us)
            << name << " against the " << name_of(plan) << " plan on " << gpu.name;
      EXPECT_LT(fused.kernels, estimate_plan(p.graph, Plan::Unfused, gpu).kernels) << name;
    }
  }
}

TEST(CostRanking, TimeThenHash) {
  Cost fast, slow;
  fast.estimated_us = 1.0;
  slow.estimated_us = 2.0;
  EXPECT_TRUE(ranks_before(fast, 9, slow, 1));
  EXPECT_FALSE(ranks_before(slow, 1, fast, 9));
  EXPECT_TRUE(ranks_before(fast, 1, fast, 2));
  EXPECT_FALSE(ranks_before(fast, 2, fast, 2));
  const nlohmann::json j = cost_summary_json(estimate(test::reference("lora"), kH100));
  EXPECT_EQ(j.size(), 3u);
  EXPECT_EQ(j["kernels"], 1);
  EXPECT_EQ(j["dram_bytes"], 3'407'872);
  EXPECT_NEAR(j["estimated_us"].get<double>(), 2.0 + us(3'407'872, 3.2e12), kTol);
}

}  // namespace
}  // namespace ugs
