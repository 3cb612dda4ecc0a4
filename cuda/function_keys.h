#pragma once
// Function keys where a chunk's fingerprints are (function_classes.h): each graph's tensors as the
// device holds them, computed tensors as element sums in the chunk's slots with their shapes in a
// small table, inputs as the run's hashes. The CUDA backend's key kernel and its host emulation both
// call key_item, so the emulator's tests check the device's arithmetic and this file's plan.
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "plan.h"
#include "ugs/eval/fingerprint.h"
#include "ugs/eval/function_classes.h"

namespace ugs::cuda {

struct KeyShape {
  int32_t rank;
  int32_t d[kMaxRank];
};

struct KeyGraph {
  uint32_t slot_first;  // the chunk's slot of its first computed tensor
  uint32_t open;        // bit t: tensor t is open
  uint8_t n_inputs, n_tensors;
};

// A chunk's graphs as key_item reads them (host side; uploaded as bytes).
struct KeyPlan {
  std::vector<KeyGraph> graphs;
  std::vector<uint32_t> shape_of;  // per slot: its shape in `shapes`
  std::vector<KeyShape> shapes;    // the chunk's distinct shapes
  std::unordered_map<uint64_t, uint32_t> shape_index;  // shape hash -> its first entry in `shapes`
};

// For the chunk `plan` was built for (plan.begin to plan.end of graphs). Reuses out's memory.
void build_key_plan(std::span<const KernelGraph* const> graphs, const ChunkPlan& plan, KeyPlan& out);

struct KeyArgs {
  const KeyGraph* graphs = nullptr;  // the chunk's
  uint32_t n = 0;
  uint32_t first = 0;  // batch index of graphs[0]
  const uint32_t* shape_of = nullptr;
  const KeyShape* shapes = nullptr;
  const uint64_t* sums = nullptr;          // the chunk's element sums, by slot
  const uint64_t* input_hashes = nullptr;  // the run's inputs'
  const double* cost = nullptr;            // per graph of the batch
  const uint64_t* tie = nullptr;
  ClassItem* items = nullptr;  // per graph of the batch: written for the chunk's
};

// Graph i of the chunk: its item, with the key its tensors' hashes make.
UGS_HD inline void key_item(const KeyArgs& a, uint32_t i) {
  const KeyGraph g = a.graphs[i];
  uint64_t marks[kMaxTensors];
  for (int t = 0; t < g.n_tensors; ++t) {
    uint64_t hash = 0;
    if (t < g.n_inputs) {
      hash = a.input_hashes[t];
    } else {
      const uint32_t slot = g.slot_first + static_cast<uint32_t>(t - g.n_inputs);
      const KeyShape& s = a.shapes[a.shape_of[slot]];
      hash = finish_tensor_hash(a.sums[slot], s.rank, s.d);
    }
    marks[t] = mark_tensor(hash, (g.open >> t) & 1);
  }
  const uint32_t b = a.first + i;
  a.items[b] = ClassItem{function_key(marks, g.n_tensors), a.cost[b], a.tie[b], b};
}

}  // namespace ugs::cuda
