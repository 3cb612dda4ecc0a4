// Costs as text (include/ugs/cost/cost_text.h). Byte counts print exactly, so a reader can check them
// against the rules by hand.
#include "ugs/cost/cost_text.h"

#include <fmt/format.h>

namespace ugs {
namespace {

std::string blocks_text(int64_t blocks) { return blocks == kFullGrid ? "full" : std::to_string(blocks); }

std::string edges_text(const EdgeTally& e) {
  return fmt::format("local {}, regional {}, global {}", e[EdgeClass::Local], e[EdgeClass::Regional],
                     e[EdgeClass::Global]);
}

}  // namespace

std::string gpu_line(const GpuSpec& gpu) {
  return fmt::format(
      "{}: {} SMs, {:.3g} TB/s device memory ({:.0f} GB/s per SM), {:.3g} TB/s shared memory, "
      "{:.1f} TFLOP/s fp16 tensor, {:.1f} TFLOP/s fp16 vector, {} KiB shared memory per block, "
      "{:.1f} us per launch",
      gpu.description, gpu.sms, gpu.dram_bytes_per_s / 1e12, gpu.sm_dram_bytes_per_s / 1e9,
      gpu.smem_bytes_per_s / 1e12, gpu.tensor_flops_per_s / 1e12, gpu.vector_flops_per_s / 1e12,
      gpu.smem_per_block / 1024, gpu.launch_us);
}

std::string kernel_table(const Cost& cost, int indent) {
  const std::string pad(indent, ' ');
  std::string text = pad + fmt::format("{:<30} {:>6} {:>12} {:>11} {:>12} {:>9} {:>7} {:>8} {:>8} {:>8} {:>9}\n",
                                       "kernel", "blocks", "dram read", "dram write", "smem", "mflop", "bound",
                                       "dram us", "smem us", "comp us", "total us");
  for (const KernelCost& kernel : cost.per_kernel) {
    const KernelCounts& counts = kernel.counts;
    const double mflop = static_cast<double>(counts.mma_flops + counts.vector_flops) / 1e6;
    text += pad + fmt::format("{:<30} {:>6} {:>12} {:>11} {:>12} {:>9.2f} {:>7} {:>8.3f} {:>8.3f} {:>8.3f} {:>9.3f}\n",
                              counts.what, blocks_text(counts.blocks), counts.dram_read, counts.dram_write,
                              counts.smem, mflop, name_of(kernel.bound), kernel.dram_us, kernel.smem_us,
                              kernel.compute_us, kernel.total_us);
  }
  text += pad + fmt::format("total {:.3f} us, {} dram bytes ({} if replicated loads hit L2), {} smem bytes, "
                            "{} kernels; edges {}\n",
                            cost.estimated_us, cost.dram_bytes, cost.dram_unique_bytes, cost.smem_bytes, cost.kernels,
                            edges_text(cost.edges));
  return text;
}

std::string summary_header() {
  return fmt::format("{:<10} {:>7} {:>10} {:>12} {:>12} {:>12}\n", "plan", "kernels", "est. us", "dram bytes",
                     "smem bytes", "mflop");
}

std::string summary_line(std::string_view name, const Cost& cost) {
  return fmt::format("{:<10} {:>7} {:>10.3f} {:>12} {:>12} {:>12.2f}\n", name, cost.kernels, cost.estimated_us,
                     cost.dram_bytes, cost.smem_bytes, static_cast<double>(cost.mma_flops + cost.vector_flops) / 1e6);
}

}  // namespace ugs
