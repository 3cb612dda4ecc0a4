// Soundness of the normal form and of the oracle's rejections, by random rewriting: a random term is
// rewritten many times by the axioms of docs/design.md §4 (both directions, anywhere in the tree). The result
// must have the same normal form, and every subterm of every rewritten version must be kept by the
// oracle (no prefix of an equivalent μGraph is ever pruned).
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "ugs/expr/oracle.h"

namespace ugs::expr {
namespace {

// A term as written, before normalization: binary nodes, sizes as integers.
struct Raw {
  ExprKind kind = ExprKind::Var;
  int64_t n = 0;  // var index, or the size of sum and rms
  std::vector<Raw> kids;
  friend bool operator==(const Raw&, const Raw&) = default;
};

Raw leaf(int v) { return {ExprKind::Var, v, {}}; }
Raw node(ExprKind k, std::vector<Raw> kids, int64_t n = 0) { return {k, n, std::move(kids)}; }

ExprId build(ExprPool& p, const Raw& r) {
  auto a = [&](int i) { return build(p, r.kids[i]); };
  switch (r.kind) {
    case ExprKind::Var: return p.var(static_cast<int>(r.n));
    case ExprKind::Add: return p.add(a(0), a(1));
    case ExprKind::Mul: return p.mul(a(0), a(1));
    case ExprKind::Div: return p.div(a(0), a(1));
    case ExprKind::Exp: return p.exp(a(0));
    case ExprKind::Sqrt: return p.sqrt(a(0));
    case ExprKind::Silu: return p.silu(a(0));
    case ExprKind::Sum: return p.sum(r.n, a(0));
    case ExprKind::Rms: return p.rms(r.n, a(0));
    case ExprKind::Huge: break;
  }
  return p.huge();
}

Raw random_raw(std::mt19937& rng, int depth) {
  std::uniform_int_distribution<int> pick(0, 99);
  const int v = pick(rng) % 4;
  if (depth == 0 || pick(rng) < 15) return leaf(v);
  const int64_t sizes[] = {2, 3, 5, 6, 15};
  const int r = pick(rng);
  auto sub = [&] { return random_raw(rng, depth - 1); };
  if (r < 25) return node(ExprKind::Add, {sub(), sub()});
  if (r < 50) return node(ExprKind::Mul, {sub(), sub()});
  if (r < 62) return node(ExprKind::Div, {sub(), sub()});
  if (r < 80) return node(ExprKind::Sum, {sub()}, sizes[pick(rng) % 5]);
  if (r < 86) return node(ExprKind::Exp, {sub()});
  if (r < 91) return node(ExprKind::Sqrt, {sub()});
  if (r < 95) return node(ExprKind::Silu, {sub()});
  return node(ExprKind::Rms, {sub()}, sizes[pick(rng) % 5]);
}

bool is(const Raw& r, ExprKind k) { return r.kind == k; }

// One axiom (or its converse) applied at the root of r, if it matches; false otherwise.
bool rewrite_root(Raw& r, int rule, std::mt19937& rng) {
  using K = ExprKind;
  auto& k = r.kids;
  switch (rule) {
    case 0:  // commutativity
      if (!is(r, K::Add) && !is(r, K::Mul)) return false;
      std::swap(k[0], k[1]);
      return true;
    case 1:  // associativity, left to right
      if ((!is(r, K::Add) && !is(r, K::Mul)) || k[0].kind != r.kind) return false;
      r = node(r.kind, {k[0].kids[0], node(r.kind, {k[0].kids[1], k[1]})});
      return true;
    case 2:  // mul(add(x,y), z) -> add(mul(x,z), mul(y,z))
      if (!is(r, K::Mul) || !is(k[0], K::Add)) return false;
      r = node(K::Add, {node(K::Mul, {k[0].kids[0], k[1]}), node(K::Mul, {k[0].kids[1], k[1]})});
      return true;
    case 3:  // add(mul(x,z), mul(y,z)) -> mul(add(x,y), z)
      if (!is(r, K::Add) || !is(k[0], K::Mul) || !is(k[1], K::Mul) || k[0].kids[1] != k[1].kids[1]) return false;
      r = node(K::Mul, {node(K::Add, {k[0].kids[0], k[1].kids[0]}), k[0].kids[1]});
      return true;
    case 4:  // div(add(x,y), z) <-> add(div(x,z), div(y,z))
      if (is(r, K::Div) && is(k[0], K::Add)) {
        r = node(K::Add, {node(K::Div, {k[0].kids[0], k[1]}), node(K::Div, {k[0].kids[1], k[1]})});
        return true;
      }
      if (is(r, K::Add) && is(k[0], K::Div) && is(k[1], K::Div) && k[0].kids[1] == k[1].kids[1]) {
        r = node(K::Div, {node(K::Add, {k[0].kids[0], k[1].kids[0]}), k[0].kids[1]});
        return true;
      }
      return false;
    case 5:  // mul(x, div(y,z)) <-> div(mul(x,y), z)
      if (is(r, K::Mul) && is(k[1], K::Div)) {
        r = node(K::Div, {node(K::Mul, {k[0], k[1].kids[0]}), k[1].kids[1]});
        return true;
      }
      if (is(r, K::Div) && is(k[0], K::Mul)) {
        r = node(K::Mul, {k[0].kids[0], node(K::Div, {k[0].kids[1], k[1]})});
        return true;
      }
      return false;
    case 6:  // div(div(x,y), z) <-> div(x, mul(y,z))
      if (is(r, K::Div) && is(k[0], K::Div)) {
        r = node(K::Div, {k[0].kids[0], node(K::Mul, {k[0].kids[1], k[1]})});
        return true;
      }
      if (is(r, K::Div) && is(k[1], K::Mul)) {
        r = node(K::Div, {node(K::Div, {k[0], k[1].kids[0]}), k[1].kids[1]});
        return true;
      }
      return false;
    case 7: {  // sum(a·b, x) <-> sum(a, sum(b, x)); x <-> sum(1, x)
      if (!is(r, K::Sum)) {
        if (rng() % 4) return false;
        r = node(K::Sum, {r}, 1);
        return true;
      }
      if (is(k[0], K::Sum)) {
        r = node(K::Sum, {k[0].kids[0]}, r.n * k[0].n);
        return true;
      }
      std::vector<int64_t> divisors;
      for (int64_t d = 1; d <= r.n; ++d)
        if (r.n % d == 0) divisors.push_back(d);
      const int64_t a = divisors[rng() % divisors.size()];
      r = node(K::Sum, {node(K::Sum, {k[0]}, r.n / a)}, a);
      return true;
    }
    case 8:  // sum(i, add(x,y)) <-> add(sum(i,x), sum(i,y))
      if (is(r, K::Sum) && is(k[0], K::Add)) {
        r = node(K::Add, {node(K::Sum, {k[0].kids[0]}, r.n), node(K::Sum, {k[0].kids[1]}, r.n)});
        return true;
      }
      if (is(r, K::Add) && is(k[0], K::Sum) && is(k[1], K::Sum) && k[0].n == k[1].n) {
        r = node(K::Sum, {node(K::Add, {k[0].kids[0], k[1].kids[0]})}, k[0].n);
        return true;
      }
      return false;
    case 9:  // sum(i, mul(x,y)) <-> mul(sum(i,x), y)
      if (is(r, K::Sum) && is(k[0], K::Mul)) {
        r = node(K::Mul, {node(K::Sum, {k[0].kids[0]}, r.n), k[0].kids[1]});
        return true;
      }
      if (is(r, K::Mul) && is(k[0], K::Sum)) {
        r = node(K::Sum, {node(K::Mul, {k[0].kids[0], k[1]})}, k[0].n);
        return true;
      }
      return false;
    case 10:  // sum(i, div(x,y)) <-> div(sum(i,x), y)
      if (is(r, K::Sum) && is(k[0], K::Div)) {
        r = node(K::Div, {node(K::Sum, {k[0].kids[0]}, r.n), k[0].kids[1]});
        return true;
      }
      if (is(r, K::Div) && is(k[0], K::Sum)) {
        r = node(K::Sum, {node(K::Div, {k[0].kids[0], k[1]})}, k[0].n);
        return true;
      }
      return false;
    case 11:  // exp(add(x,y)) <-> mul(exp(x), exp(y)); sqrt(mul(x,y)) <-> mul(sqrt(x), sqrt(y))
      for (auto [f, g] : {std::pair{K::Exp, K::Add}, std::pair{K::Sqrt, K::Mul}}) {
        if (is(r, f) && is(k[0], g)) {
          r = node(K::Mul, {node(f, {k[0].kids[0]}), node(f, {k[0].kids[1]})});
          return true;
        }
        if (is(r, K::Mul) && is(k[0], f) && is(k[1], f)) {
          r = node(f, {node(g, {k[0].kids[0], k[1].kids[0]})});
          return true;
        }
      }
      return false;
  }
  return false;
}

void collect(Raw& r, std::vector<Raw*>& out) {
  out.push_back(&r);
  for (Raw& k : r.kids) collect(k, out);
}

TEST(Rewrite, EquivalentTermsShareTheNormalFormAndNoSubtermIsPruned) {
  std::mt19937 rng(20240607);
  ExprPool p;
  OracleConfig cfg;
  cfg.use_z3 = false;  // structure only: what it leaves undecided is kept, never pruned
  int subterms = 0, rewrites = 0, decided = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    Raw t = random_raw(rng, 3 + trial % 3);
    const ExprId target = build(p, t);
    if (p.kind(target) == ExprKind::Huge) continue;
    Oracle o(p, std::span(&target, 1), cfg);
    for (int round = 0; round < 8; ++round) {
      for (int step = 0; step < 12; ++step) {
        std::vector<Raw*> at;
        collect(t, at);
        if (at.size() > 300) break;  // distributing copies subterms; keep the test fast
        Raw* pos = at[rng() % at.size()];
        const int first = static_cast<int>(rng() % 12);  // try the rules from a random one on
        for (int i = 0; i < 12; ++i)
          if (rewrite_root(*pos, (first + i) % 12, rng)) {
            ++rewrites;
            break;
          }
      }
      ASSERT_EQ(build(p, t), target) << "trial " << trial << ": a rewrite changed the normal form of "
                                     << p.to_string(target) << " to " << p.to_string(build(p, t));
      std::vector<Raw*> subs;
      collect(t, subs);
      for (Raw* s : subs) {
        const ExprId e = build(p, *s);
        ++subterms;
        ASSERT_TRUE(o.is_subexpr(e)) << "trial " << trial << ": pruned " << p.to_string(e) << " of "
                                     << p.to_string(target);
      }
    }
    const OracleStats st = o.stats();
    EXPECT_EQ(st.queries, st.cache_hits + st.structural + st.undecided);
    decided += static_cast<int>(st.structural);
  }
  std::printf("%d rewrites, %d subterms, %d distinct ones decided by structure\n", rewrites, subterms, decided);
  EXPECT_GT(rewrites, 50000);
  EXPECT_GT(decided, 10000);
}

}  // namespace
}  // namespace ugs::expr
