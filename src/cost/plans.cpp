// The unfused, XLA-style and AStitch-style plans (rules in include/ugs/cost/plans.h).
#include "ugs/cost/plans.h"

#include <algorithm>

namespace ugs {
namespace {

struct OpenKernel {
  bool open = true;
  int64_t rows = 0;  // astitch: rows of the stitched reduction (0: none yet)
};

std::vector<std::vector<int>> one_kernel_per_op(const Flow& f) {
  std::vector<std::vector<int>> kernels;
  for (int n = 0; n < static_cast<int>(f.nodes.size()); ++n) {
    if (n == 0 || f.nodes[n].op != f.nodes[n - 1].op) kernels.emplace_back();
    kernels.back().push_back(n);
  }
  return kernels;
}

// The kernel that produced node n's most recent operand, or -1 when all are inputs.
int latest_operand_kernel(const Flow& f, int n, const std::vector<int>& kernel_of) {
  int k = -1;
  for (int32_t t : f.nodes[n].in)
    if (t >= 0 && f.producer[t] >= 0) k = std::max(k, kernel_of[f.producer[t]]);
  return k;
}

bool row_fits(const Flow& f, const FlowNode& n, const GpuSpec& gpu) {
  const int64_t row = f.shapes[n.in[0]].numel() / f.shapes[n.out].numel();
  return row * gpu.elem_bytes <= gpu.smem_per_block;
}

std::vector<std::vector<int>> fused(const Flow& f, bool stitch, const GpuSpec& gpu) {
  std::vector<std::vector<int>> kernels;
  std::vector<OpenKernel> state;
  std::vector<int> kernel_of(f.nodes.size(), -1);
  for (int n = 0; n < static_cast<int>(f.nodes.size()); ++n) {
    const FlowNode& node = f.nodes[n];
    const int64_t rows = f.shapes[node.out].numel();
    int k = latest_operand_kernel(f, n, kernel_of);
    bool join = node.access != Access::Tile && k >= 0 && state[k].open;
    if (join && node.access == Access::Reduction && state[k].rows != 0 && state[k].rows != rows) join = false;
    if (!join) {
      k = static_cast<int>(kernels.size());
      kernels.emplace_back();
      state.emplace_back();
    }
    kernels[k].push_back(n);
    kernel_of[n] = k;
    if (node.access == Access::Tile) state[k].open = false;
    if (node.access == Access::Reduction) {
      if (stitch && row_fits(f, node, gpu))
        state[k].rows = rows;
      else
        state[k].open = false;
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

std::vector<std::vector<int>> plan_kernels(const Flow& f, Plan p, const GpuSpec& gpu) {
  switch (p) {
    case Plan::Unfused: return one_kernel_per_op(f);
    case Plan::Xla: return fused(f, false, gpu);
    case Plan::Astitch: return fused(f, true, gpu);
  }
  return {};
}

Cost estimate_plan(const KernelGraph& program, Plan p, const GpuSpec& gpu) {
  const Flow f = flow_of(program);
  std::vector<KernelCost> kernels;
  for (const std::vector<int>& nodes : plan_kernels(f, p, gpu))
    kernels.push_back(price_kernel(group_counts(f, nodes, gpu.elem_bytes), gpu));
  return sum_kernels(std::move(kernels));
}

}  // namespace ugs
