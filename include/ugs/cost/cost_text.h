#pragma once
// Costs as text tables for `ugsearch cost`: one line per kernel with what it moves and which term
// bounds it, then the totals and the edge classes.
#include <string>

#include "ugs/cost/cost.h"
#include "ugs/cost/gpu.h"

namespace ugs {

// "NVIDIA H100 SXM5 80GB: 132 SMs, 3.35 TB/s device memory, ..."
std::string gpu_line(const GpuSpec& gpu);
// The per-kernel table, each line indented by `indent` spaces, and a totals line.
std::string kernel_table(const Cost& cost, int indent);
// One line of a plan comparison: name, kernels, time, device-memory bytes (and the header).
std::string summary_header();
std::string summary_line(std::string_view name, const Cost& cost);

}  // namespace ugs
