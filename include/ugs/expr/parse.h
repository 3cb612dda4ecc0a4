#pragma once
// Reading abstract expressions from text, for tests, benchmarks and debugging: the syntax ExprPool
// prints. Left-associative + (lowest), then * and /; x0, x1, ... name inputs (or the given names);
// exp(e), sqrt(e), silu(e), sum(k, e), rms(k, e).   "sum(15, x0*x2) / rms(15, x0) + x1"
#include <span>
#include <string>
#include <string_view>

#include "ugs/expr/expr.h"

namespace ugs::expr {

// Throws std::invalid_argument naming the position on a syntax error.
ExprId parse_expr(ExprPool& pool, std::string_view text, std::span<const std::string> names = {});

}  // namespace ugs::expr
