#pragma once
// Three reference plans of an input program, priced by the same model as μGraphs (docs/design.md §8). Each
// plan cuts the program's dataflow (flow.h) into kernels, visiting nodes in program order:
//   unfused  one kernel per op, as a framework runs it (rms_norm is one library kernel).
//   xla      a node joins the kernel of its most recently produced operand when that kernel is still
//            open; otherwise it starts a kernel. A matmul is always a kernel of its own (a library
//            call); a reduction closes its kernel (its consumers must read it from device memory),
//            so rms_norm becomes two kernels. Element-wise chains fuse; nothing is recomputed.
//   astitch  as xla, but a reduction whose row fits in one block's shared memory leaves its kernel
//            open: consumers join it and read the reduced value through shared memory (regional
//            stitching). Such a kernel runs one block per row; a later reduction with another row
//            count starts a new kernel.
#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "ugs/cost/cost.h"
#include "ugs/cost/flow.h"

namespace ugs {

enum class Plan : uint8_t { Unfused, Xla, Astitch };
inline constexpr std::array kPlans = {Plan::Unfused, Plan::Xla, Plan::Astitch};
std::string_view name_of(Plan p);

// The plan's kernels as node indices of `flow`, in launch order.
std::vector<std::vector<int>> plan_kernels(const Flow& flow, Plan plan, const GpuSpec& gpu);
// `program` holds predefined ops only.
Cost estimate_plan(const KernelGraph& program, Plan plan, const GpuSpec& gpu);

}  // namespace ugs
