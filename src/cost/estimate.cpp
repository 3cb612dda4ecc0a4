// A μGraph's cost: each kernel op priced on its own (a block graph by its grid and tiles, a
// predefined op as the one library kernel the unfused plan also runs), then summed.
#include <array>

#include "ugs/cost/block_counts.h"
#include "ugs/cost/cost.h"
#include "ugs/cost/flow.h"

namespace ugs {

KernelCost price_kernel_op(const KernelGraph& graph, int i, const GpuSpec& gpu) {
  const KernelOp& kernel_op = graph.ops[i];
  if (kernel_op.op.kind == OpKind::Block)
    return price_kernel(block_counts(graph, graph.blocks[kernel_op.block], gpu.elem_bytes), gpu);
  const Flow flow = flow_of_op(graph, i);
  std::array<int, 2> nodes{0, 1};  // rms_norm is two nodes, any other op one
  const std::span<const int> all(nodes.data(), flow.nodes.size());
  return price_kernel(group_counts(flow, all, gpu.elem_bytes), gpu);
}

Cost estimate(const KernelGraph& graph, const GpuSpec& gpu) {
  std::vector<KernelCost> kernels;
  kernels.reserve(graph.ops.size());
  for (int i = 0; i < graph.ops.size(); ++i) kernels.push_back(price_kernel_op(graph, i, gpu));
  return sum_kernels(std::move(kernels));
}

}  // namespace ugs
