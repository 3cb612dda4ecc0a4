// Costs as JSON (include/ugs/cost/cost_json.h).
#include "ugs/cost/cost_json.h"

#include <string>

namespace ugs {
namespace {

using nlohmann::json;

json edges_json(const EdgeTally& e) {
  json j = json::object();
  for (EdgeClass c : {EdgeClass::Local, EdgeClass::Regional, EdgeClass::Global}) j[std::string(name_of(c))] = e[c];
  return j;
}

json kernel_json(const KernelCost& kernel) {
  const KernelCounts& counts = kernel.counts;
  return {{"what", counts.what},
          {"blocks", counts.blocks},
          {"dram_read", counts.dram_read},
          {"dram_write", counts.dram_write},
          {"smem", counts.smem},
          {"mma_flops", counts.mma_flops},
          {"vector_flops", counts.vector_flops},
          {"edges", edges_json(counts.edges)},
          {"dram_us", kernel.dram_us},
          {"smem_us", kernel.smem_us},
          {"compute_us", kernel.compute_us},
          {"launch_us", kernel.launch_us},
          {"total_us", kernel.total_us},
          {"bound", name_of(kernel.bound)}};
}

}  // namespace

json cost_summary_json(const Cost& cost) {
  return {{"estimated_us", cost.estimated_us}, {"dram_bytes", cost.dram_bytes}, {"kernels", cost.kernels}};
}

json cost_json(const Cost& cost) {
  json doc = cost_summary_json(cost);
  doc["dram_unique_bytes"] = cost.dram_unique_bytes;
  doc["smem_bytes"] = cost.smem_bytes;
  doc["register_bytes"] = cost.register_bytes;
  doc["mma_flops"] = cost.mma_flops;
  doc["vector_flops"] = cost.vector_flops;
  doc["edges"] = edges_json(cost.edges);
  doc["per_kernel"] = json::array();
  for (const KernelCost& k : cost.per_kernel) doc["per_kernel"].push_back(kernel_json(k));
  return doc;
}

json gpu_json(const GpuSpec& gpu) {
  return {{"name", gpu.name},
          {"description", gpu.description},
          {"sms", gpu.sms},
          {"dram_bytes_per_s", gpu.dram_bytes_per_s},
          {"sm_dram_bytes_per_s", gpu.sm_dram_bytes_per_s},
          {"smem_bytes_per_s", gpu.smem_bytes_per_s},
          {"tensor_flops_per_s", gpu.tensor_flops_per_s},
          {"vector_flops_per_s", gpu.vector_flops_per_s},
          {"launch_us", gpu.launch_us},
          {"smem_per_block", gpu.smem_per_block},
          {"smem_per_sm", gpu.smem_per_sm},
          {"elem_bytes", gpu.elem_bytes}};
}

}  // namespace ugs
