#pragma once
// The target GPU of the cost model (docs/design.md §8): the few figures the model's formulas use. Each preset
// names the source of every number in src/cost/gpu.cpp; figures that no datasheet gives (launch
// overhead, how much device memory one SM can draw) are the model's stated assumptions.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace ugs {

struct GpuSpec {
  std::string_view name;         // "h100": what --gpu takes
  std::string_view description;  // "NVIDIA H100 SXM5 80GB"
  int sms = 0;                   // streaming multiprocessors
  double dram_bytes_per_s = 0;   // device-memory (HBM) bandwidth
  double sm_dram_bytes_per_s = 0;  // the most one SM draws from device memory (Little's law)
  double smem_bytes_per_s = 0;   // shared-memory bandwidth of all SMs together
  double tensor_flops_per_s = 0;   // dense fp16 tensor-core peak: matmuls
  double vector_flops_per_s = 0;   // fp16 peak without tensor cores: every other op
  double launch_us = 0;          // per kernel: launch plus the gap between dependent kernels
  int64_t smem_per_block = 0;    // bytes one block may use (opt-in maximum)
  int64_t smem_per_sm = 0;       // bytes per SM
  int elem_bytes = 2;            // half precision on the device
};

// "h100" or "a100"; nullopt for any other name.
std::optional<GpuSpec> gpu_preset(std::string_view name);
// The preset names, for help texts and error messages.
const std::vector<std::string_view>& gpu_names();

}  // namespace ugs
