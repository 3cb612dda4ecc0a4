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

json kernel_json(const KernelCost& k) {
  const KernelCounts& n = k.counts;
  return {{"what", n.what},
          {"blocks", n.blocks},
          {"dram_read", n.dram_read},
          {"dram_write", n.dram_write},
          {"smem", n.smem},
          {"mma_flops", n.mma_flops},
          {"vector_flops", n.vector_flops},
          {"edges", edges_json(n.edges)},
          {"dram_us", k.dram_us},
          {"smem_us", k.smem_us},
          {"compute_us", k.compute_us},
          {"launch_us", k.launch_us},
          {"total_us", k.total_us},
          {"bound", name_of(k.bound)}};
}

}  // namespace

json cost_summary_json(const Cost& c) {
  return {{"estimated_us", c.estimated_us}, {"dram_bytes", c.dram_bytes}, {"kernels", c.kernels}};
}

json cost_json(const Cost& c) {
  json j = cost_summary_json(c);
  j["dram_unique_bytes"] = c.dram_unique_bytes;
  j["smem_bytes"] = c.smem_bytes;
  j["register_bytes"] = c.register_bytes;
  j["mma_flops"] = c.mma_flops;
  j["vector_flops"] = c.vector_flops;
  j["edges"] = edges_json(c.edges);
  j["per_kernel"] = json::array();
  for (const KernelCost& k : c.per_kernel) j["per_kernel"].push_back(kernel_json(k));
  return j;
}

json gpu_json(const GpuSpec& g) {
  return {{"name", g.name},
          {"description", g.description},
          {"sms", g.sms},
          {"dram_bytes_per_s", g.dram_bytes_per_s},
          {"sm_dram_bytes_per_s", g.sm_dram_bytes_per_s},
          {"smem_bytes_per_s", g.smem_bytes_per_s},
          {"tensor_flops_per_s", g.tensor_flops_per_s},
          {"vector_flops_per_s", g.vector_flops_per_s},
          {"launch_us", g.launch_us},
          {"smem_per_block", g.smem_per_block},
          {"smem_per_sm", g.smem_per_sm},
          {"elem_bytes", g.elem_bytes}};
}

}  // namespace ugs
