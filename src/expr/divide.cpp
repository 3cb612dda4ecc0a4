// Exact division of terms and expressions (divide.h). No cancellation axiom exists, so a quotient is
// unique when it exists: the algebra of normal forms embeds in a polynomial ring, where a·c = a·c'
// implies c = c'.
#include "divide.h"

#include <algorithm>
#include <iterator>

namespace ugs::expr::detail {
namespace {

// The atoms of w less those of a, if a's are a sub-multiset of w's (both in canonical order).
bool subtract_atoms(const ExprPool& pool, const std::vector<ExprId>& w, const std::vector<ExprId>& a,
                    std::vector<ExprId>* out) {
  auto before = [&](ExprId x, ExprId y) { return pool.before(x, y); };
  if (!std::includes(w.begin(), w.end(), a.begin(), a.end(), before)) return false;
  out->clear();
  std::set_difference(w.begin(), w.end(), a.begin(), a.end(), std::back_inserter(*out), before);
  return true;
}

// The factor of c for a factor that w has (wx) and a may have (ax): exp subtracts summands, sqrt and
// the denominator divide.
Quot factor_quotient(Algebra& alg, ExprId wx, ExprId ax, bool is_exp, ExprId* cx) {
  if (ax == kNoExpr) {
    *cx = wx;
    return Quot::Ok;
  }
  if (wx == kNoExpr) return Quot::Fail;
  return is_exp ? subtract_terms(alg, wx, ax, cx) : divide_expr(alg, wx, ax, cx);
}

}  // namespace

TermKey key_of(Algebra& alg, const Term& t) { return {alg.monomial(t), t.den}; }

Quot divide_term(Algebra& alg, const Term& w, const Term& a, Term* c) {
  if (!a.k.divides(w.k)) return Quot::Fail;
  c->k = w.k.quotient(a.k);
  if (!subtract_atoms(alg.pool(), w.atoms, a.atoms, &c->atoms)) return Quot::Fail;
  Quot worst = Quot::Ok;
  auto part = [&](ExprId wx, ExprId ax, bool is_exp, ExprId* cx) {
    const Quot q = factor_quotient(alg, wx, ax, is_exp, cx);
    if (q == Quot::Unknown) worst = Quot::Unknown;
    return q != Quot::Fail;
  };
  if (!part(w.exp, a.exp, true, &c->exp) || !part(w.sqrt, a.sqrt, false, &c->sqrt) ||
      !part(w.den, a.den, false, &c->den))
    return Quot::Fail;
  return worst;
}

namespace {

// q·b = a for a single-summand b: q divides a summand by summand (each quotient must have a factor).
Quot divide_by_term(Algebra& alg, const std::vector<Term>& ta, const Term& b, std::vector<Term>* q) {
  bool unknown = false;
  for (const Term& t : ta) {
    Term c;
    const Quot r = divide_term(alg, t, b, &c);
    if (r == Quot::Fail || (r == Quot::Ok && !c.has_factor())) return Quot::Fail;
    unknown |= r == Quot::Unknown;
    q->push_back(std::move(c));
  }
  return unknown ? Quot::Unknown : Quot::Ok;
}

}  // namespace

Quot divide_expr(Algebra& alg, ExprId a, ExprId b, ExprId* q) {
  ExprPool& pool = alg.pool();
  if (a == b) {
    *q = kNoExpr;
    return Quot::Ok;
  }
  // b divides a only if b ⊑ a, so b's monotone facts lie within a's.
  if (!pool.facts(b).within(pool.facts(a))) return Quot::Fail;
  const int na = pool.num_terms(a), nb = pool.num_terms(b);
  if (na % nb != 0) return Quot::Fail;  // summands multiply: |q·b| = |q|·|b|
  if (nb > 1 && na != nb) return Quot::Unknown;  // polynomial division by a sum: left to the solver
  std::vector<Term> ta, tb;
  alg.terms(a, ta);
  alg.terms(b, tb);
  bool unknown = false;
  if (nb == 1) {
    std::vector<Term> qt;
    const Quot r = divide_by_term(alg, ta, tb[0], &qt);
    if (r != Quot::Ok) return r;
    const ExprId cand = alg.build(qt);
    if (pool.mul(cand, b) != a) return Quot::Fail;
    *q = cand;
    return Quot::Ok;
  }
  for (const Term& t : tb) {  // a one-summand q: q·t = ta[0] for one summand t of b
    Term c;
    const Quot r = divide_term(alg, ta[0], t, &c);
    unknown |= r == Quot::Unknown;
    if (r != Quot::Ok || !c.has_factor()) continue;  // a bare size or 1/h is no expression
    std::vector<Term> one{c};
    const ExprId cand = alg.build(one);
    if (pool.mul(cand, b) == a) {
      *q = cand;
      return Quot::Ok;
    }
  }
  return unknown ? Quot::Unknown : Quot::Fail;
}

Quot subtract_terms(Algebra& alg, ExprId w, ExprId s, ExprId* rest) {
  std::vector<Term> tw, ts;
  alg.terms(w, tw);
  alg.terms(s, ts);
  if (ts.size() > tw.size()) return Quot::Fail;
  std::vector<TermKey> ks;
  for (const Term& t : ts) ks.push_back(key_of(alg, t));
  std::sort(ks.begin(), ks.end());
  std::vector<Term> left;
  std::vector<TermKey> kw;
  for (const Term& t : tw) kw.push_back(key_of(alg, t));
  // Walk w's summands in key order, dropping one per key of s.
  std::vector<size_t> order(tw.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return kw[x] < kw[y]; });
  size_t j = 0;
  for (size_t i : order) {
    if (j < ks.size() && ks[j] == kw[i]) {
      ++j;
    } else {
      if (j < ks.size() && ks[j] < kw[i]) return Quot::Fail;
      left.push_back(tw[i]);
    }
  }
  if (j < ks.size()) return Quot::Fail;
  *rest = left.empty() ? kNoExpr : alg.build(left);
  return Quot::Ok;
}

}  // namespace ugs::expr::detail
