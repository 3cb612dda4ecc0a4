#pragma once
// Exact division in the normal form's algebra, for the oracle's structural decision: which cofactor
// turns one term into another, which expression times b is a, and what remains of a sum when some of
// its summands are taken away. Internal to src/expr.
#include <utility>
#include <vector>

#include "algebra.h"

namespace ugs::expr::detail {

enum class Quot : uint8_t { Fail, Ok, Unknown };

// A summand's identity: its numerator node and its denominator.
using TermKey = std::pair<ExprId, ExprId>;
TermKey key_of(Algebra& alg, const Term& t);

// The c with a·c = w (exact; c may have no factor: the unit, a bare size, or 1/h).
Quot divide_term(Algebra& alg, const Term& w, const Term& a, Term* c);
// The q with q·b = a for normal forms: Ok with *q = kNoExpr when a = b, else q is a normal form.
// Unknown when q would need two or more summands (polynomial division, left to the solver).
Quot divide_expr(Algebra& alg, ExprId a, ExprId b, ExprId* q);
// The normal form of w's summands less s's (s a sub-collection of w, else Fail); kNoExpr if none remain.
Quot subtract_terms(Algebra& alg, ExprId w, ExprId s, ExprId* rest);

}  // namespace ugs::expr::detail
