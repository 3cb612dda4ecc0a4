#pragma once
// Abstract expressions in a form another process can read: an id names a node of one process's pool
// only. A list of expressions is written as the nodes of their DAG, each once, children before
// parents (kind, attributes, children by position), then the roots; reading rebuilds each node in
// the reader's pool through the pool's constructors, which give back the same normal form.
#include <span>
#include <vector>

#include "search/distributed/wire.h"
#include "ugs/expr/expr.h"

namespace ugs::search_detail {

void put_exprs(const expr::ExprPool& pool, std::span<const expr::ExprId> roots, WireWriter& out);
std::vector<expr::ExprId> get_exprs(expr::ExprPool& pool, WireReader& in);

}  // namespace ugs::search_detail
