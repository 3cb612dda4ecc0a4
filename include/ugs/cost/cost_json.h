#pragma once
// Costs as JSON: the three fields a search result carries (docs/design.md §9) and the full breakdown that
// `ugsearch cost --json` prints.
#include <nlohmann/json.hpp>

#include "ugs/cost/cost.h"
#include "ugs/cost/gpu.h"

namespace ugs {

// {"estimated_us", "dram_bytes", "kernels"}: the `cost` object of each results-file μGraph.
nlohmann::json cost_summary_json(const Cost& cost);
// The summary plus dram_unique_bytes, smem_bytes, register_bytes, mma_flops, vector_flops,
// edges {local, regional, global} and per_kernel [{what, blocks (0: full grid), dram_read,
// dram_write, smem, mma_flops, vector_flops, dram_us, smem_us, compute_us, launch_us, total_us, bound}].
nlohmann::json cost_json(const Cost& cost);
// The preset's name, description and figures.
nlohmann::json gpu_json(const GpuSpec& gpu);

}  // namespace ugs
