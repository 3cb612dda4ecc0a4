#include "ugs/eval/prefix_plan.h"

#include <algorithm>
#include <numeric>

#include "ugs/ir/canonical.h"
#include "ugs/util/hash.h"

namespace ugs {

uint64_t op_identity(const KernelGraph& graph, int i) {
  const KernelOp& kernel_op = graph.ops[i];
  if (kernel_op.op.kind == OpKind::Block)
    return Hasher(0xB10C).add(structural_hash(graph.blocks[kernel_op.block])).value();
  return Hasher(static_cast<uint64_t>(kernel_op.op.kind))
      .add(static_cast<uint64_t>(static_cast<uint8_t>(kernel_op.op.dim)))
      .add(static_cast<uint32_t>(kernel_op.op.to))
      .add(static_cast<uint32_t>(kernel_op.op.in[0]))
      .add(static_cast<uint32_t>(kernel_op.op.in[1]))
      .value();
}

namespace {

// Exact equality of op i of two graphs whose ops before i are equal: identities only sort and group,
// so a hash collision costs sharing, never a wrong fingerprint.
bool same_op(const KernelGraph& a, const KernelGraph& b, int i) {
  const KernelOp &x = a.ops[i], &y = b.ops[i];
  if (!(x.op.kind == y.op.kind) || x.num_out != y.num_out) return false;
  if (x.op.kind != OpKind::Block) return x.op == y.op;
  const BlockGraph &p = a.blocks[x.block], &q = b.blocks[y.block];
  return p.grid == q.grid && p.loop == q.loop && p.inputs == q.inputs && p.ops == q.ops && p.outputs == q.outputs;
}

}  // namespace

int shared_prefix(const KernelGraph& a, const KernelGraph& b) {
  if (a.num_inputs != b.num_inputs) return 0;
  int same = 0;
  while (same < a.ops.size() && same < b.ops.size() && same_op(a, b, same)) ++same;
  return same;
}

PrefixPlan plan_prefixes(std::span<const KernelGraph* const> graphs, int pieces) {
  PrefixPlan plan;
  std::vector<std::vector<uint64_t>> ids(graphs.size());
  for (size_t g = 0; g < graphs.size(); ++g) {
    for (int i = 0; i < graphs[g]->ops.size(); ++i) ids[g].push_back(op_identity(*graphs[g], i));
    plan.ops += ids[g].size();
  }
  plan.order.resize(graphs.size());
  std::iota(plan.order.begin(), plan.order.end(), 0u);
  std::stable_sort(plan.order.begin(), plan.order.end(), [&](uint32_t a, uint32_t b) { return ids[a] < ids[b]; });

  // Groups: equal first ops (a graph without ops is a group of its own), cut to at most `most`.
  const size_t most = std::max<size_t>(1, (graphs.size() + pieces - 1) / std::max(pieces, 1));
  std::vector<std::pair<size_t, size_t>> runs;  // [begin, end) in the sorted order
  for (size_t k = 0; k < plan.order.size();) {
    size_t end = k + 1;
    const auto& first = ids[plan.order[k]];
    while (end < plan.order.size() && end - k < most && !first.empty() && !ids[plan.order[end]].empty() &&
           ids[plan.order[end]][0] == first[0])
      ++end;
    runs.emplace_back(k, end);
    k = end;
  }
  std::stable_sort(runs.begin(), runs.end(),
                   [](const auto& a, const auto& b) { return a.second - a.first > b.second - b.first; });
  std::vector<uint32_t> sorted = std::move(plan.order);
  plan.order.clear();
  for (const auto& [begin, end] : runs) {
    plan.groups.push_back(plan.order.size());
    for (size_t k = begin; k < end; ++k) {
      const auto& mine = ids[sorted[k]];
      uint32_t same = 0;
      if (k > begin) {
        const uint32_t prev = sorted[k - 1];
        const auto& before = ids[prev];
        while (same < mine.size() && same < before.size() && mine[same] == before[same] &&
               same_op(*graphs[sorted[k]], *graphs[prev], static_cast<int>(same)))
          ++same;
      }
      plan.order.push_back(sorted[k]);
      plan.shared.push_back(same);
      plan.evaluated += mine.size() - same;
    }
  }
  plan.groups.push_back(plan.order.size());
  return plan;
}

}  // namespace ugs
