// GPU presets. Sources:
//   H100: NVIDIA H100 Tensor Core GPU datasheet (SXM5 80GB: 3.35 TB/s HBM3, 989.4 TFLOPS dense fp16
//         tensor = 1,979 with sparsity halved) and the Hopper architecture whitepaper (132 SMs on SXM5;
//         fp16 non-tensor 133.8 TFLOPS; fp32 66.9 TFLOPS = 132 SMs x 128 lanes x 2 x 1.98 GHz).
//   A100: NVIDIA A100 datasheet (SXM4 80GB: 2,039 GB/s HBM2e, 312 TFLOPS dense fp16 tensor) and the
//         Ampere architecture whitepaper (108 SMs, 1.41 GHz boost, fp16 non-tensor 78 TFLOPS).
//   Shared memory: CUDA C++ Programming Guide, compute capabilities 9.0 and 8.0 (228 KB per SM and
//         227 KB per block on H100; 164 KB and 163 KB on A100) and its shared-memory section
//         (32 banks of 4 bytes, one access each per clock): 128 B/clock/SM x SMs x boost clock.
// Assumptions (no datasheet gives them):
//   launch_us = 2: host launch plus the idle gap between two dependent kernels on one stream, the
//         order of magnitude commonly measured for back-to-back CUDA launches; the same on both GPUs.
//   sm_dram_bytes_per_s = 50 GB/s: by Little's law, about 32 KiB of loads in flight per SM over about
//         650 ns of device-memory latency. So a kernel needs about 67 blocks on H100 (41 on A100) to
//         saturate device memory, while compute and shared memory scale with every SM.
#include "ugs/cost/gpu.h"

namespace ugs {
namespace {

constexpr int64_t kKiB = 1024;
constexpr double kSmemBytesPerClockPerSm = 32 * 4;

GpuSpec h100() {
  GpuSpec g;
  g.name = "h100";
  g.description = "NVIDIA H100 SXM5 80GB";
  g.sms = 132;
  g.dram_bytes_per_s = 3.35e12;
  g.sm_dram_bytes_per_s = 50e9;
  g.smem_bytes_per_s = kSmemBytesPerClockPerSm * 132 * 1.98e9;
  g.tensor_flops_per_s = 989.4e12;
  g.vector_flops_per_s = 133.8e12;
  g.launch_us = 2.0;
  g.smem_per_block = 227 * kKiB;
  g.smem_per_sm = 228 * kKiB;
  return g;
}

GpuSpec a100() {
  GpuSpec g;
  g.name = "a100";
  g.description = "NVIDIA A100 SXM4 80GB";
  g.sms = 108;
  g.dram_bytes_per_s = 2.039e12;
  g.sm_dram_bytes_per_s = 50e9;
  g.smem_bytes_per_s = kSmemBytesPerClockPerSm * 108 * 1.41e9;
  g.tensor_flops_per_s = 312e12;
  g.vector_flops_per_s = 78e12;
  g.launch_us = 2.0;
  g.smem_per_block = 163 * kKiB;
  g.smem_per_sm = 164 * kKiB;
  return g;
}

}  // namespace

std::optional<GpuSpec> gpu_preset(std::string_view name) {
  if (name == "h100") return h100();
  if (name == "a100") return a100();
  return std::nullopt;
}

const std::vector<std::string_view>& gpu_names() {
  static const std::vector<std::string_view> names = {"h100", "a100"};
  return names;
}

}  // namespace ugs
