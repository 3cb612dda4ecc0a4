// The per-kernel time formula of include/ugs/cost/cost.h, and the sum over a graph's kernels.
#include <algorithm>

#include "ugs/cost/cost.h"

namespace ugs {

std::string_view name_of(Bound b) {
  switch (b) {
    case Bound::Dram: return "dram";
    case Bound::Smem: return "smem";
    case Bound::Compute: return "compute";
  }
  return "?";
}

KernelCost price_kernel(const KernelCounts& k, const GpuSpec& gpu) {
  // A library kernel fills the GPU; a block graph runs exactly its grid.
  const double blocks = k.blocks == kFullGrid ? gpu.sms : static_cast<double>(k.blocks);
  const double active_sms = std::min(blocks, static_cast<double>(gpu.sms));
  const double busy = active_sms / gpu.sms;
  const double dram_rate = std::min(gpu.dram_bytes_per_s, active_sms * gpu.sm_dram_bytes_per_s);
  constexpr double kUs = 1e6;

  KernelCost c;
  c.counts = k;
  c.dram_us = static_cast<double>(k.dram_read + k.dram_write) / dram_rate * kUs;
  c.smem_us = static_cast<double>(k.smem) / (gpu.smem_bytes_per_s * busy) * kUs;
  c.compute_us = (static_cast<double>(k.mma_flops) / gpu.tensor_flops_per_s +
                  static_cast<double>(k.vector_flops) / gpu.vector_flops_per_s) / busy * kUs;
  c.launch_us = gpu.launch_us;
  double worst = c.dram_us;
  if (c.smem_us > worst) {
    worst = c.smem_us;
    c.bound = Bound::Smem;
  }
  if (c.compute_us > worst) {
    worst = c.compute_us;
    c.bound = Bound::Compute;
  }
  c.total_us = c.launch_us + worst;
  return c;
}

Cost sum_kernels(std::vector<KernelCost> kernels) {
  Cost c;
  for (const KernelCost& k : kernels) {
    const KernelCounts& n = k.counts;
    c.estimated_us += k.total_us;
    c.dram_bytes += n.dram_read + n.dram_write;
    c.dram_unique_bytes += n.dram_unique;
    c.smem_bytes += n.smem;
    c.register_bytes += n.registers;
    c.mma_flops += n.mma_flops;
    c.vector_flops += n.vector_flops;
    c.edges += n.edges;
  }
  c.kernels = static_cast<int>(kernels.size());
  c.per_kernel = std::move(kernels);
  return c;
}

bool ranks_before(const Cost& a, uint64_t hash_a, const Cost& b, uint64_t hash_b) {
  if (a.estimated_us != b.estimated_us) return a.estimated_us < b.estimated_us;
  return hash_a < hash_b;
}

}  // namespace ugs
