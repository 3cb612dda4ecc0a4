// The structural decision of "e ⊑ t" (structural.h). Normal forms are canonical (equal under the
// equivalence axioms iff equal ids), and the subexpressions of t are exactly:
//
//   e ⊑ t  iff  e·c is a sub-collection of the summands of some site w of t, for one cofactor c,
//
// where the sites of t are t itself, the argument of every exp, sqrt, silu and rms atom in it and
// every denominator in it (closed under the same), and c is one term: a size times atoms, an exp, a
// sqrt, over a denominator, or any part of that, down to the unit 1. Why: the parts of a term tree at
// one site are sub-sums (add), factors (mul), numerators and denominators (div) and sum(k, ·)
// bodies; a factor of a sub-sum of a factor of a sub-sum is again a factor of a sub-sum (multiplying
// by a term maps summands one to one), and a factor of a sub-sum S = e·C already has e·c ⊆ S for any
// one summand c of C. div(a, b) = w makes a a "factor" with cofactor 1/b, exp(x + y) = exp(x)·exp(y)
// and sqrt(x·y) = sqrt(x)·sqrt(y) make exp and sqrt factors divisible, and an atom's argument starts
// a new site. Cofactor candidates are few: c = w_j / e_1 for each summand w_j of w.
//
// Answers: Yes and No are exact; Unknown only where a division needs a quotient with two or more
// summands (not implemented), which the oracle hands to z3.
#include "structural.h"

#include <algorithm>

namespace ugs::expr::detail {

StructuralIndex::StructuralIndex(ExprPool& pool, std::span<const ExprId> targets) : pool_(pool) {
  for (ExprId t : targets) {
    targets_huge_ |= pool_.kind(t) == ExprKind::Huge;
    target_facts_.push_back(pool_.facts(t));
    add_sites(t);
  }
}

void StructuralIndex::add_sites(ExprId target) {
  Algebra alg(pool_);
  std::vector<ExprId> stack{target}, site_roots{target};
  while (!stack.empty()) {
    const ExprId n = stack.back();
    stack.pop_back();
    if (!nodes_.insert(n).second) continue;
    const ExprKind k = pool_.kind(n);
    if (k == ExprKind::Exp || k == ExprKind::Sqrt || k == ExprKind::Silu || k == ExprKind::Rms)
      site_roots.push_back(pool_.kids(n)[0]);
    if (k == ExprKind::Div) site_roots.push_back(pool_.kids(n)[1]);
    for (ExprId c : pool_.kids(n)) stack.push_back(c);
  }
  for (ExprId r : site_roots) {
    if (pool_.kind(r) == ExprKind::Huge) continue;
    if (std::any_of(sites_.begin(), sites_.end(), [&](const Site& s) { return s.node == r; })) continue;
    Site s{r, {}};
    std::vector<Term> ts;
    alg.terms(r, ts);
    for (Term& t : ts) s.terms.emplace_back(key_of(alg, t), std::move(t));
    std::sort(s.terms.begin(), s.terms.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    sites_.push_back(std::move(s));
  }
}

Answer StructuralIndex::decide(ExprId e) const {
  if (pool_.kind(e) == ExprKind::Huge) return targets_huge_ ? Answer::Unknown : Answer::No;
  const ExprFacts& f = pool_.facts(e);
  if (std::none_of(target_facts_.begin(), target_facts_.end(), [&](const ExprFacts& t) { return f.within(t); }))
    return targets_huge_ ? Answer::Unknown : Answer::No;
  if (nodes_.count(e)) return Answer::Yes;
  Algebra alg(pool_);
  std::vector<Term> terms;
  alg.terms(e, terms);
  bool unknown = targets_huge_;
  for (const Site& w : sites_) {
    if (!f.within(pool_.facts(w.node))) continue;
    const Answer a = match(alg, terms, w);
    if (a == Answer::Yes) return Answer::Yes;
    unknown |= a == Answer::Unknown;
  }
  return unknown ? Answer::Unknown : Answer::No;
}

// Is e·c ⊆ w for the cofactor c = w_j / e_1 of some summand w_j?
Answer StructuralIndex::match(Algebra& alg, const std::vector<Term>& e, const Site& w) const {
  if (e.size() > w.terms.size()) return Answer::No;
  bool unknown = false;
  std::vector<TermKey> keys;
  for (size_t j = 0; j < w.terms.size(); ++j) {
    if (j > 0 && w.terms[j].first == w.terms[j - 1].first) continue;
    Term c;
    const Quot q = divide_term(alg, w.terms[j].second, e[0], &c);
    unknown |= q == Quot::Unknown;
    if (q != Quot::Ok) continue;
    keys.clear();
    bool fits = true;
    for (const Term& t : e) {
      Term prod;
      if (!alg.multiply(t, c, &prod) || prod.degree() > pool_.limits().max_degree) {
        fits = false;  // past the limits, so no summand of w (which is within them)
        break;
      }
      keys.push_back(key_of(alg, prod));
    }
    if (!fits) continue;
    std::sort(keys.begin(), keys.end());
    auto wk = w.terms.begin();
    fits = std::all_of(keys.begin(), keys.end(), [&](const TermKey& k) {
      wk = std::lower_bound(wk, w.terms.end(), k, [](const auto& a, const TermKey& b) { return a.first < b; });
      if (wk == w.terms.end() || wk->first != k) return false;
      ++wk;  // each summand of w covers one summand of e·c
      return true;
    });
    if (fits) return Answer::Yes;
  }
  return unknown ? Answer::Unknown : Answer::No;
}

}  // namespace ugs::expr::detail
