#pragma once
// Whether a state read from a file (a checkpoint's) is one the search could have made: its graphs
// rebuilt through the graph API (every shape, map, launch and operand checked as a search checks
// them) come out byte for byte as read, and a symbolic opening's launches all load its block graph.
// A resume checks every state so that a damaged checkpoint is refused, never searched from: the
// generator trusts its states.
#include "ugs/ir/graph.h"
#include "ugs/search/generator/state.h"

namespace ugs::search_detail {

bool well_formed(const State& state, const GraphRules& rules);

}  // namespace ugs::search_detail
