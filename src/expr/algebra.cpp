// The normal form's algebra (algebra.h): terms of an expression, building an expression from terms,
// and the constructors add, mul, div and sum on normal forms. Each step below is one of docs/design.md §4's
// equivalence axioms read left to right, so a normal form is provably equal to the term it came from,
// and equal terms get equal normal forms (tests/test_expr.cpp checks every axiom).
#include <algorithm>
#include <array>

#include "algebra.h"

namespace ugs::expr::detail {

void Algebra::add_monomial(ExprId m, ExprId den, std::vector<Term>& out) const {
  Term t;
  t.den = den;
  if (pool_.kind(m) == ExprKind::Sum) {
    t.k = pool_.size(m);
    m = pool_.kids(m)[0];
  }
  auto factor = [&](ExprId f) {
    switch (pool_.kind(f)) {
      case ExprKind::Exp: t.exp = pool_.kids(f)[0]; break;
      case ExprKind::Sqrt: t.sqrt = pool_.kids(f)[0]; break;
      default: t.atoms.push_back(f);
    }
  };
  if (pool_.kind(m) == ExprKind::Mul) {
    for (ExprId f : pool_.kids(m)) factor(f);
  } else {
    factor(m);
  }
  out.push_back(std::move(t));
}

void Algebra::terms(ExprId e, std::vector<Term>& out) const {
  auto fraction = [&](ExprId d) {
    const ExprId num = pool_.kids(d)[0], den = pool_.kids(d)[1];
    if (pool_.kind(num) == ExprKind::Add) {
      for (ExprId m : pool_.kids(num)) add_monomial(m, den, out);
    } else {
      add_monomial(num, den, out);
    }
  };
  switch (pool_.kind(e)) {
    case ExprKind::Add:
      for (ExprId k : pool_.kids(e)) {
        if (pool_.kind(k) == ExprKind::Div) {
          fraction(k);
        } else {
          add_monomial(k, kNoExpr, out);
        }
      }
      break;
    case ExprKind::Div: fraction(e); break;
    default: add_monomial(e, kNoExpr, out);
  }
}

ExprId Algebra::make_sum(std::vector<ExprId>& items) {
  if (items.size() == 1) return items[0];
  std::sort(items.begin(), items.end(), [&](ExprId a, ExprId b) { return pool_.before(a, b); });
  return intern(ExprKind::Add, items);
}

ExprId Algebra::monomial(const Term& t) {
  std::vector<ExprId> f = t.atoms;
  if (t.exp != kNoExpr) f.push_back(pool_.exp(t.exp));
  if (t.sqrt != kNoExpr) f.push_back(pool_.sqrt(t.sqrt));
  std::sort(f.begin(), f.end(), [&](ExprId a, ExprId b) { return pool_.before(a, b); });
  const ExprId prod = f.size() == 1 ? f[0] : intern(ExprKind::Mul, f);
  return t.k.is_one() ? prod : intern(ExprKind::Sum, std::span(&prod, 1), t.k);
}

// Summands over one denominator form one fraction (add(div(x,z), div(y,z)) = div(add(x,y), z)).
ExprId Algebra::build(std::vector<Term>& ts) {
  const ExprLimits& lim = pool_.limits();
  if (ts.empty() || static_cast<int>(ts.size()) > lim.max_terms) return pool_.huge();
  for (const Term& t : ts)
    if (t.degree() > lim.max_degree) return pool_.huge();
  std::stable_sort(ts.begin(), ts.end(), [](const Term& a, const Term& b) { return a.den < b.den; });
  std::vector<ExprId> top, group;
  for (size_t i = 0; i < ts.size();) {
    const ExprId den = ts[i].den;
    group.clear();
    for (; i < ts.size() && ts[i].den == den; ++i) group.push_back(monomial(ts[i]));
    if (den == kNoExpr) {
      top.insert(top.end(), group.begin(), group.end());
    } else {
      const std::array<ExprId, 2> kids{make_sum(group), den};
      top.push_back(intern(ExprKind::Div, kids));
    }
  }
  return make_sum(top);
}

ExprId Algebra::combine(ExprId x, ExprId y, bool as_sum) {
  if (x == kNoExpr) return y;
  if (y == kNoExpr) return x;
  return as_sum ? pool_.add(x, y) : pool_.mul(x, y);
}

// exp(x)·exp(y) = exp(x+y), sqrt(x)·sqrt(y) = sqrt(x·y), (a/b)·(c/d) = (a·c)/(b·d), sizes multiply.
bool Algebra::multiply(const Term& a, const Term& b, Term* out) {
  const std::optional<Size> k = Size::product(a.k, b.k);
  if (!k) return false;
  out->k = *k;
  out->atoms.resize(a.atoms.size() + b.atoms.size());
  std::merge(a.atoms.begin(), a.atoms.end(), b.atoms.begin(), b.atoms.end(), out->atoms.begin(),
             [&](ExprId x, ExprId y) { return pool_.before(x, y); });
  out->exp = combine(a.exp, b.exp, true);
  out->sqrt = combine(a.sqrt, b.sqrt, false);
  out->den = combine(a.den, b.den, false);
  const ExprId huge = pool_.huge();
  return out->exp != huge && out->sqrt != huge && out->den != huge;
}

ExprId Algebra::apply(uint32_t op, ExprId a, ExprId b, const Size& k) {
  const ExprId huge = pool_.huge();
  if (a == huge || b == huge) return huge;
  switch (op) {
    case kOpExp: return intern(ExprKind::Exp, std::span(&a, 1));
    case kOpSqrt: return intern(ExprKind::Sqrt, std::span(&a, 1));
    case kOpSilu: return intern(ExprKind::Silu, std::span(&a, 1));
    case kOpRms: return intern(ExprKind::Rms, std::span(&a, 1), k);
    default: break;
  }
  std::vector<Term> ta, tb, out;
  terms(a, ta);
  switch (op) {
    case kOpAdd:
      terms(b, ta);
      return build(ta);
    case kOpMul: {
      terms(b, tb);
      if (ta.size() * tb.size() > static_cast<size_t>(pool_.limits().max_terms)) return huge;
      out.resize(ta.size() * tb.size());
      for (size_t i = 0; i < ta.size(); ++i)
        for (size_t j = 0; j < tb.size(); ++j)
          if (!multiply(ta[i], tb[j], &out[i * tb.size() + j])) return huge;
      return build(out);
    }
    case kOpDiv:  // div(div(x,y),z) = div(x, mul(y,z)), div(add(x,y),z) = add(div(x,z), div(y,z))
      for (Term& t : ta) {
        t.den = combine(t.den, b, false);
        if (t.den == huge) return huge;
      }
      return build(ta);
    case kOpSum:  // sum(i, sum(j,x)) = sum(i·j, x); sum distributes over add, into one factor, into a numerator
      for (Term& t : ta) {
        const std::optional<Size> s = Size::product(t.k, k);
        if (!s) return huge;
        t.k = *s;
      }
      return build(ta);
  }
  return huge;
}

}  // namespace ugs::expr::detail
