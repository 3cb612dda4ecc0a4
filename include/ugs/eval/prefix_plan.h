#pragma once
// Shared work in a batch of fingerprints. A search's candidates come from one another: the μGraphs
// that one state completes, and those of its neighbours in a batch, begin with the same kernel ops,
// so a batch holds far fewer distinct kernel ops than its candidates have. A graph's kernel ops are
// appended in order, so two graphs whose first L ops are equal compute the same first L ops' tensors,
// at the same indices. The plan groups a batch's graphs by their first op and orders each group so
// that a graph can start from where the one before it stopped.
#include <cstdint>
#include <span>
#include <vector>

#include "ugs/ir/graph.h"

namespace ugs {

// What kernel op i computes, given the ops before it: its kind and attributes and operand indices,
// or its block graph's whole structure.
uint64_t op_identity(const KernelGraph& graph, int i);

// The number of leading kernel ops a and b have equal (compared exactly, not by identity).
int shared_prefix(const KernelGraph& a, const KernelGraph& b);

struct PrefixPlan {
  std::vector<uint32_t> order;   // the graphs, group by group, each group in lexicographic op order
  std::vector<uint32_t> shared;  // per position in `order`: leading ops equal to the previous graph's (0 first in a group)
  std::vector<size_t> groups;    // group g is order[groups[g] .. groups[g + 1]); largest first
  uint64_t ops = 0, evaluated = 0;  // kernel ops in the batch, and those left to evaluate
};

// `pieces`: a group of more than graphs / pieces graphs is cut into runs of at most that many (each
// run starts its prefix afresh), so that `pieces` threads have work of about equal size.
PrefixPlan plan_prefixes(std::span<const KernelGraph* const> graphs, int pieces = 1);

}  // namespace ugs
