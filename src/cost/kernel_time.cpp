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

KernelCost price_kernel(const KernelCounts& counts, const GpuSpec& gpu) {
  // A library kernel fills the GPU; a block graph runs exactly its grid.
  const double blocks = counts.blocks == kFullGrid ? gpu.sms : static_cast<double>(counts.blocks);
  const double active_sms = std::min(blocks, static_cast<double>(gpu.sms));
  const double busy = active_sms / gpu.sms;
  const double dram_rate = std::min(gpu.dram_bytes_per_s, active_sms * gpu.sm_dram_bytes_per_s);
  constexpr double kUs = 1e6;

  KernelCost cost;
  cost.counts = counts;
  cost.dram_us = static_cast<double>(counts.dram_read + counts.dram_write) / dram_rate * kUs;
  cost.smem_us = static_cast<double>(counts.smem) / (gpu.smem_bytes_per_s * busy) * kUs;
  cost.compute_us = (static_cast<double>(counts.mma_flops) / gpu.tensor_flops_per_s +
                     static_cast<double>(counts.vector_flops) / gpu.vector_flops_per_s) / busy * kUs;
  cost.launch_us = gpu.launch_us;
  double worst = cost.dram_us;
  if (cost.smem_us > worst) {
    worst = cost.smem_us;
    cost.bound = Bound::Smem;
  }
  if (cost.compute_us > worst) {
    worst = cost.compute_us;
    cost.bound = Bound::Compute;
  }
  cost.total_us = cost.launch_us + worst;
  return cost;
}

Cost sum_kernels(std::vector<KernelCost> kernels) {
  Cost total;
  for (const KernelCost& kernel : kernels) {
    const KernelCounts& counts = kernel.counts;
    total.estimated_us += kernel.total_us;
    total.dram_bytes += counts.dram_read + counts.dram_write;
    total.dram_unique_bytes += counts.dram_unique;
    total.smem_bytes += counts.smem;
    total.register_bytes += counts.registers;
    total.mma_flops += counts.mma_flops;
    total.vector_flops += counts.vector_flops;
    total.edges += counts.edges;
  }
  total.kernels = static_cast<int>(kernels.size());
  total.per_kernel = std::move(kernels);
  return total;
}

bool ranks_before(const Cost& a, uint64_t hash_a, const Cost& b, uint64_t hash_b) {
  if (a.estimated_us != b.estimated_us) return a.estimated_us < b.estimated_us;
  return hash_a < hash_b;
}

}  // namespace ugs
