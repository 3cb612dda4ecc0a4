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

std::string gpu_line(const GpuSpec& g) {
  return fmt::format(
      "{}: {} SMs, {:.3g} TB/s device memory ({:.0f} GB/s per SM), {:.3g} TB/s shared memory, "
      "{:.1f} TFLOP/s fp16 tensor, {:.1f} TFLOP/s fp16 vector, {} KiB shared memory per block, "
      "{:.1f} us per launch",
      g.description, g.sms, g.dram_bytes_per_s / 1e12, g.sm_dram_bytes_per_s / 1e9, g.smem_bytes_per_s / 1e12,
      g.tensor_flops_per_s / 1e12, g.vector_flops_per_s / 1e12, g.smem_per_block / 1024, g.launch_us);
}

std::string kernel_table(const Cost& c, int indent) {
  const std::string pad(indent, ' ');
  std::string s = pad + fmt::format("{:<30} {:>6} {:>12} {:>11} {:>12} {:>9} {:>7} {:>8} {:>8} {:>8} {:>9}\n",
                                    "kernel", "blocks", "dram read", "dram write", "smem", "mflop", "bound",
                                    "dram us", "smem us", "comp us", "total us");
  for (const KernelCost& k : c.per_kernel) {
    const KernelCounts& n = k.counts;
    const double mflop = static_cast<double>(n.mma_flops + n.vector_flops) / 1e6;
    s += pad + fmt::format("{:<30} {:>6} {:>12} {:>11} {:>12} {:>9.2f} {:>7} {:>8.3f} {:>8.3f} {:>8.3f} {:>9.3f}\n",
                           n.what, blocks_text(n.blocks), n.dram_read, n.dram_write, n.smem, mflop, name_of(k.bound),
                           k.dram_us, k.smem_us, k.compute_us, k.total_us);
  }
  s += pad + fmt::format("total {:.3f} us, {} dram bytes ({} if replicated loads hit L2), {} smem bytes, "
                         "{} kernels; edges {}\n",
                         c.estimated_us, c.dram_bytes, c.dram_unique_bytes, c.smem_bytes, c.kernels,
                         edges_text(c.edges));
  return s;
}

std::string summary_header() {
  return fmt::format("{:<10} {:>7} {:>10} {:>12} {:>12} {:>12}\n", "plan", "kernels", "est. us", "dram bytes",
                     "smem bytes", "mflop");
}

std::string summary_line(std::string_view name, const Cost& c) {
  return fmt::format("{:<10} {:>7} {:>10.3f} {:>12} {:>12} {:>12.2f}\n", name, c.kernels, c.estimated_us,
                     c.dram_bytes, c.smem_bytes, static_cast<double>(c.mma_flops + c.vector_flops) / 1e6);
}

}  // namespace ugs
