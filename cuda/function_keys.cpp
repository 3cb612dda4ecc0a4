// A chunk's key plan (function_keys.h).
#include "function_keys.h"

namespace ugs::cuda {
namespace {

uint32_t intern_shape(const Shape& s, KeyPlan& out) {
  KeyShape k{s.rank, {1, 1, 1, 1}};
  for (int i = 0; i < s.rank; ++i) k.d[i] = s.d[i];
  const uint64_t h = finish_tensor_hash(0, s);  // the shape's part of a tensor hash
  const auto [it, fresh] = out.shape_index.try_emplace(h, static_cast<uint32_t>(out.shapes.size()));
  if (fresh) {
    out.shapes.push_back(k);
    return it->second;
  }
  // Two shapes of one hash: the later one gets an entry of its own (found by a scan, never in practice).
  for (uint32_t j = it->second; j < out.shapes.size(); ++j) {
    const KeyShape& x = out.shapes[j];
    bool same = x.rank == k.rank;
    for (int i = 0; same && i < k.rank; ++i) same = x.d[i] == k.d[i];
    if (same) return j;
  }
  out.shapes.push_back(k);
  return static_cast<uint32_t>(out.shapes.size() - 1);
}

}  // namespace

void build_key_plan(std::span<const KernelGraph* const> graphs, const ChunkPlan& plan, KeyPlan& out) {
  out.graphs.clear();
  out.shape_of.assign(plan.n_slots, 0);
  out.shapes.clear();
  out.shape_index.clear();
  for (size_t i = 0; i < plan.end - plan.begin; ++i) {
    const KernelGraph& g = *graphs[plan.begin + i];
    const KeyGraph k{plan.slot_first[i], open_mask(g), static_cast<uint8_t>(g.num_inputs),
                     static_cast<uint8_t>(g.num_tensors())};
    for (int t = g.num_inputs; t < g.num_tensors(); ++t)
      out.shape_of[k.slot_first + t - g.num_inputs] = intern_shape(g.shape(t), out);
    out.graphs.push_back(k);
  }
}

}  // namespace ugs::cuda
