#pragma once
// Graphviz export of a μGraph: kernel tensors as ellipses, predefined kernels as boxes, each block
// graph as a cluster of its tiles (loaders, ops, savers) with grid, loop and maps in the labels.
#include <string>
#include <vector>

#include "ugs/ir/graph.h"

namespace ugs {

// `input_names` labels the inputs when given (a program's names), else in0, in1, ...
std::string to_dot(const KernelGraph& graph, const std::vector<std::string>& input_names = {});

}  // namespace ugs
