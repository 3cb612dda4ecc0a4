#pragma once
// How near a state looks to a μGraph: the most that the abstract expressions of its tensors hold of
// the program's, counted as the inputs they read and the kinds of operation they apply (facts that
// only grow toward the program's expression, ExprFacts in expr.h). A state that has already built
// most of the output's expression needs fewer steps to close it than one that has only loaded tiles.
// The breadth-first engine keeps each batch's children most promising first, so a search that dives
// under a memory limit reaches μGraphs early; every state is still expanded. Internal to src/search.
#include <algorithm>
#include <cstdint>

#include "ugs/expr/expr.h"
#include "ugs/search/generator/state.h"

namespace ugs::search_detail {

inline uint8_t expr_promise(const expr::ExprPool& pool, expr::ExprId e) {
  if (e == kNoQuery) return 0;
  return pool.facts(e).coverage;
}

inline uint8_t state_promise(const expr::ExprPool& pool, const State& state) {
  uint8_t best = 0;
  for (expr::ExprId e : state.kexpr) best = std::max(best, expr_promise(pool, e));
  if (state.open)
    for (expr::ExprId e : state.bexpr) best = std::max(best, expr_promise(pool, e));
  return best;
}

}  // namespace ugs::search_detail
