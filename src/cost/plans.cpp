// The unfused, XLA-style and AStitch-style plans (rules in include/ugs/cost/plans.h).
#include "ugs/cost/plans.h"

#include <algorithm>

namespace ugs {
namespace {

struct OpenKernel {
  bool open = true;
  int64_t rows = 0;  // astitch: rows of the stitched reduction (0: none yet)
};

std::vector<std::vector<int>> one_kernel_per_op(const Flow& flow) {
  std::vector<std::vector<int>> kernels;
  for (int n = 0; n < static_cast<int>(flow.nodes.size()); ++n) {
    if (n == 0 || flow.nodes[n].op != flow.nodes[n - 1].op) kernels.emplace_back();
    kernels.back().push_back(n);
  }
  return kernels;
}

// The kernel that produced node n's most recent operand, or -1 when all are inputs.
int latest_operand_kernel(const Flow& flow, int n, const std::vector<int>& kernel_of) {
  int k = -1;
  for (int32_t t : flow.nodes[n].in)
    if (t >= 0 && flow.producer[t] >= 0) k = std::max(k, kernel_of[flow.producer[t]]);
  return k;
}

bool row_fits(const Flow& flow, const FlowNode& n, const GpuSpec& gpu) {
  const int64_t row = flow.shapes[n.in[0]].numel() / flow.shapes[n.out].numel();
  return row * gpu.elem_bytes <= gpu.smem_per_block;
}

std::vector<std::vector<int>> fused(const Flow& flow, bool stitch, const GpuSpec& gpu) {
  std::vector<std::vector<int>> kernels;
  std::vector<OpenKernel> state;
  std::vector<int> kernel_of(flow.nodes.size(), -1);
  for (int n = 0; n < static_cast<int>(flow.nodes.size()); ++n) {
    const FlowNode& node = flow.nodes[n];
    const int64_t rows = flow.shapes[node.out].numel();
    int kernel = latest_operand_kernel(flow, n, kernel_of);
    bool join = node.access != Access::Tile && kernel >= 0 && state[kernel].open;
    if (join && node.access == Access::Reduction && state[kernel].rows != 0 && state[kernel].rows != rows)
      join = false;
    if (!join) {
      kernel = static_cast<int>(kernels.size());
      kernels.emplace_back();
      state.emplace_back();
    }
    kernels[kernel].push_back(n);
    kernel_of[n] = kernel;
    if (node.access == Access::Tile) state[kernel].open = false;
    if (node.access == Access::Reduction) {
      if (stitch && row_fits(flow, node, gpu))
        state[kernel].rows = rows;
      else
        state[kernel].open = false;
    }
  }
  return kernels;
}

}  // namespace

std::string_view name_of(Plan p) {
  switch (p) {
    case Plan::Unfused: return "unfused";
    case Plan::Xla: return "xla";
    case Plan::Astitch: return "astitch";
  }
  return "?";
}

std::vector<std::vector<int>> plan_kernels(const Flow& flow, Plan plan, const GpuSpec& gpu) {
  switch (plan) {
    case Plan::Unfused: return one_kernel_per_op(flow);
    case Plan::Xla: return fused(flow, false, gpu);
    case Plan::Astitch: return fused(flow, true, gpu);
  }
  return {};
}

Cost estimate_plan(const KernelGraph& program, Plan plan, const GpuSpec& gpu) {
  const Flow flow = flow_of(program);
  std::vector<KernelCost> kernels;
  for (const std::vector<int>& nodes : plan_kernels(flow, plan, gpu))
    kernels.push_back(price_kernel(group_counts(flow, nodes, gpu.elem_bytes), gpu));
  return sum_kernels(std::move(kernels));
}

}  // namespace ugs
