#pragma once
// Whether a state read from a file (a checkpoint's) is one the search could have made: its graphs
// rebuilt through the graph API (every shape, map, launch and operand checked as a search checks
// them) come out byte for byte as read, and a symbolic opening's launches all load its block graph.
// A resume checks every state so that a damaged checkpoint is refused, never searched from: the
// generator trusts its states.
#include <optional>

#include "ugs/ir/graph.h"
#include "ugs/search/generator/generator.h"
#include "ugs/search/generator/state.h"

namespace ugs::search_detail {

bool well_formed(const State& state, const GraphRules& rules);

// A step read from a checkpoint's tree, checked against its parent state as the graph API checks a
// search's steps: an op's kind, operands and shapes (applied to `state` and taken back, so `state`
// comes back as it was), a symbolic op's launches (each must take it), an opening's loaders, grid and
// loop, a closing's savers and its block graph replayed into the kernel (on `scratch`, a copy). The
// step's query, an op's new expression in `gen`'s pool (kNoQuery for the others); nullopt where the
// step does not apply. Only applying is checked, not the generator's canonical order or limits: a
// damaged file is caught by the slabs' hashes, and this keeps a step that got past them from ever
// reading outside a graph.
std::optional<expr::ExprId> step_fits(State& state, const Step& step, const Generator& gen, State& scratch);

}  // namespace ugs::search_detail
