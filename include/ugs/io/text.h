#pragma once
// A μGraph as readable text, one line per kernel op and per block op.
#include <string>

#include "ugs/ir/graph.h"

namespace ugs {

std::string to_text(const KernelGraph& graph);

}  // namespace ugs
