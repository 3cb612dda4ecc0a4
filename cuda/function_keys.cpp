// A chunk's key plan (function_keys.h).
#include "function_keys.h"

namespace ugs::cuda {
namespace {

uint32_t intern_shape(const Shape& shape, KeyPlan& out) {
  KeyShape key{shape.rank, {1, 1, 1, 1}};
  for (int i = 0; i < shape.rank; ++i) key.d[i] = shape.d[i];
  const uint64_t hash = finish_tensor_hash(0, shape);  // the shape's part of a tensor hash
  const auto [it, fresh] = out.shape_index.try_emplace(hash, static_cast<uint32_t>(out.shapes.size()));
  if (fresh) {
    out.shapes.push_back(key);
    return it->second;
  }
  // Two shapes of one hash: the later one gets an entry of its own (found by a scan, never in practice).
  for (uint32_t j = it->second; j < out.shapes.size(); ++j) {
    const KeyShape& x = out.shapes[j];
    bool same = x.rank == key.rank;
    for (int i = 0; same && i < key.rank; ++i) same = x.d[i] == key.d[i];
    if (same) return j;
  }
  out.shapes.push_back(key);
  return static_cast<uint32_t>(out.shapes.size() - 1);
}

}  // namespace

void build_key_plan(std::span<const KernelGraph* const> graphs, const ChunkPlan& plan, KeyPlan& out) {
  out.graphs.clear();
  out.shape_of.assign(plan.n_slots, 0);
  out.shapes.clear();
  out.shape_index.clear();
  for (size_t i = 0; i < plan.end - plan.begin; ++i) {
    const KernelGraph& graph = *graphs[plan.begin + i];
    const KeyGraph key{plan.slot_first[i], open_mask(graph), static_cast<uint8_t>(graph.num_inputs),
                       static_cast<uint8_t>(graph.num_tensors())};
    for (int t = graph.num_inputs; t < graph.num_tensors(); ++t)
      out.shape_of[key.slot_first + t - graph.num_inputs] = intern_shape(graph.shape(t), out);
    out.graphs.push_back(key);
  }
}

}  // namespace ugs::cuda
