#pragma once
// Function classes (--dedup function): kernel-level graphs whose tensors have the same fingerprints
// compute the same function, whatever ops got them there. A graph's function key is the multiset of
// its tensors' hashes, each marked open (not yet consumed) or consumed; of a batch's graphs that share
// a key, the least by (cost, tie, index) represents the class. The key and the order are host-and-device
// code, so a backend may classify where its fingerprints are (the CUDA backend: on the device, with
// CUB's sort and select) and still give the CPU's classes.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "ugs/ir/graph.h"
#include "ugs/util/hash.h"

namespace ugs {

UGS_HD constexpr uint64_t mark_tensor(uint64_t hash, bool open) { return splitmix64(hash + (open ? 1 : 0)); }

// The key of marks[0, n) (each tensor's mark_tensor), which it sorts in place: a multiset's hash.
// Insertion sort: n is at most kMaxTensors, and the device runs it in one thread.
UGS_HD constexpr uint64_t function_key(uint64_t* marks, int n) {
  for (int i = 1; i < n; ++i) {
    const uint64_t x = marks[i];
    int j = i;
    for (; j > 0 && marks[j - 1] > x; --j) marks[j] = marks[j - 1];
    marks[j] = x;
  }
  Hasher h;
  for (int i = 0; i < n; ++i) h.add(marks[i]);
  return h.value();
}

// hashes: `graph`'s tensors' fingerprint hashes (Fingerprints::of). (Inline here and below: the CUDA
// library uses them and depends on headers only.)
static_assert(kMaxTensors <= 32, "a graph's open tensors are a 32-bit mask");
inline uint32_t open_mask(const KernelGraph& graph) {
  uint32_t open = 0;
  for (int32_t t : graph.open_tensors()) open |= uint32_t{1} << t;
  return open;
}

inline uint64_t function_key(const KernelGraph& graph, std::span<const uint64_t> hashes) {
  const uint32_t open = open_mask(graph);
  uint64_t marks[kMaxTensors];
  for (int t = 0; t < graph.num_tensors(); ++t) marks[t] = mark_tensor(hashes[t], (open >> t) & 1);
  return function_key(marks, graph.num_tensors());
}

// One graph of a batch, as its class's members are ranked. Trivial, for CUB's sort.
struct ClassItem {
  uint64_t key;
  double cost;   // the cost model's estimate: the cheapest represents the class
  uint64_t tie;  // then the smallest tie (the search's state key), then the batch index
  uint32_t index;
};

struct ClassItemLess {
  UGS_HD constexpr bool operator()(const ClassItem& a, const ClassItem& b) const {
    if (a.key != b.key) return a.key < b.key;
    if (a.cost != b.cost) return a.cost < b.cost;
    if (a.tie != b.tie) return a.tie < b.tie;
    return a.index < b.index;
  }
};

// A sorted batch's item i begins a class.
UGS_HD constexpr bool begins_class(const ClassItem* sorted, uint64_t i) {
  return i == 0 || sorted[i].key != sorted[i - 1].key;
}

struct FunctionClasses {
  std::vector<uint64_t> keys;  // the batch's distinct function keys, ascending
  std::vector<uint32_t> best;  // per key: the batch index of the graph that represents it

  // From a batch's items: sorts them, then takes the first of each key.
  void assign(std::vector<ClassItem>& items) {
    std::sort(items.begin(), items.end(), ClassItemLess{});
    keys.clear();
    best.clear();
    for (size_t i = 0; i < items.size(); ++i)
      if (begins_class(items.data(), i)) {
        keys.push_back(items[i].key);
        best.push_back(items[i].index);
      }
  }
};

}  // namespace ugs
