#pragma once
// z3's answers shared between ranks, each with its own oracle and expression pool: (expression,
// answer) pairs in the portable form of expr_wire.h. A pair one rank's z3 decided enters the others'
// caches, so no other rank asks z3 the same query (docs/design.md §4: z3 answers once per distinct query).
#include <span>
#include <utility>
#include <vector>

#include "search/distributed/wire.h"
#include "ugs/expr/oracle.h"

namespace ugs::search_detail {

using Decision = std::pair<expr::ExprId, bool>;

void put_decisions(const expr::ExprPool& pool, std::span<const Decision> decisions, WireWriter& out);
// Reads pairs that put_decisions wrote and enters them into oracle's cache; returns them with the
// ids of `pool` (the oracle's).
std::vector<Decision> learn_decisions(expr::Oracle& oracle, expr::ExprPool& pool, WireReader& in);

}  // namespace ugs::search_detail
