// The solver stage (z3_check.h). Every axiom below is one of docs/design.md §4's, or (the last) a consequence
// of them; asserting only true facts keeps "unsat => subexpression" sound, and "sat" means a model of
// the axioms where e is no subexpression, so the least (intended) relation has none either.
#include "z3_check.h"

#include <z3++.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace ugs::expr::detail {
namespace {

constexpr int kSpareSlots = 2;  // primes of a query that no target has (reachable with structure off)
std::atomic<uint64_t> next_uid{1};

struct SessionRef {
  uint64_t uid;
  Z3Checker::Session* session;
};
thread_local std::vector<SessionRef> tl_sessions;

}  // namespace

struct Z3Checker::Session {
  z3::context ctx;
  int slots;
  z3::sort T, I;
  z3::func_decl add, mul, div, exp, sqrt, silu, sum, rms, sub;
  z3::solver solver;
  std::unordered_map<ExprId, z3::expr> memo;  // targets' nodes, sizes over the targets' primes
  std::vector<z3::expr> targets;
  std::unordered_set<int> target_vars;

  explicit Session(int n_slots)
      : slots(n_slots),
        T(ctx.uninterpreted_sort("T")),
        I(ctx.int_sort()),
        add(ctx.function("add", T, T, T)),
        mul(ctx.function("mul", T, T, T)),
        div(ctx.function("div", T, T, T)),
        exp(ctx.function("exp", T, T)),
        sqrt(ctx.function("sqrt", T, T)),
        silu(ctx.function("silu", T, T)),
        sum(sized("sum")),
        rms(sized("rms")),
        sub(ctx.function("sub", T, T, ctx.bool_sort())),
        solver(ctx) {}

  z3::func_decl sized(const char* name) {
    z3::sort_vector dom(ctx);
    for (int i = 0; i < slots; ++i) dom.push_back(I);
    dom.push_back(T);
    return ctx.function(name, dom, T);
  }
  z3::expr apply(const z3::func_decl& f, const z3::expr_vector& k, const z3::expr& x) {
    z3::expr_vector args(ctx);
    for (unsigned i = 0; i < k.size(); ++i) args.push_back(k[i]);
    args.push_back(x);
    return f(args);
  }
  z3::expr var(int i) { return ctx.constant(("x" + std::to_string(i)).c_str(), T); }
  void assert_axioms();
  // Distinct inputs, none a subexpression of another.
  void assert_distinct(const z3::expr& v, const std::vector<z3::expr>& others) {
    for (const z3::expr& o : others) {
      solver.add(v != o);
      solver.add(!sub(v, o));
      solver.add(!sub(o, v));
    }
  }
};

void Z3Checker::Session::assert_axioms() {
  const z3::expr x = ctx.constant("x", T), y = ctx.constant("y", T), z = ctx.constant("z", T);
  z3::expr_vector i(ctx), j(ctx), ij(ctx), zero(ctx);
  z3::expr i_ok = ctx.bool_val(true), j_ok = ctx.bool_val(true), i_le_j = ctx.bool_val(true);
  for (int s = 0; s < slots; ++s) {
    i.push_back(ctx.int_const(("i" + std::to_string(s)).c_str()));
    j.push_back(ctx.int_const(("j" + std::to_string(s)).c_str()));
    ij.push_back(i[s] + j[s]);
    zero.push_back(ctx.int_val(0));
    i_ok = i_ok && i[s] >= 0;
    j_ok = j_ok && j[s] >= 0;
    i_le_j = i_le_j && i[s] <= j[s];
  }
  auto vars = [&](std::initializer_list<z3::expr> sized_vars, const z3::expr_vector* a, const z3::expr_vector* b) {
    z3::expr_vector v(ctx);
    for (const z3::expr& e : sized_vars) v.push_back(e);
    for (const z3::expr_vector* w : {a, b})
      if (w)
        for (unsigned s = 0; s < w->size(); ++s) v.push_back((*w)[s]);
    return v;
  };
  auto S = [&](const z3::expr_vector& k, const z3::expr& e) { return apply(sum, k, e); };
  // Equivalence.
  solver.add(z3::forall(x, y, add(x, y) == add(y, x)));
  solver.add(z3::forall(x, y, mul(x, y) == mul(y, x)));
  solver.add(z3::forall(x, y, z, add(add(x, y), z) == add(x, add(y, z))));
  solver.add(z3::forall(x, y, z, mul(mul(x, y), z) == mul(x, mul(y, z))));
  solver.add(z3::forall(x, y, z, add(mul(x, z), mul(y, z)) == mul(add(x, y), z)));
  solver.add(z3::forall(x, y, z, add(div(x, z), div(y, z)) == div(add(x, y), z)));
  solver.add(z3::forall(x, y, z, mul(x, div(y, z)) == div(mul(x, y), z)));
  solver.add(z3::forall(x, y, z, div(div(x, y), z) == div(x, mul(y, z))));
  solver.add(z3::forall(x, S(zero, x) == x));
  solver.add(z3::forall(vars({x}, &i, &j), z3::implies(i_ok && j_ok, S(i, S(j, x)) == S(ij, x))));
  solver.add(z3::forall(vars({x, y}, &i, nullptr), z3::implies(i_ok, S(i, add(x, y)) == add(S(i, x), S(i, y)))));
  solver.add(z3::forall(vars({x, y}, &i, nullptr), z3::implies(i_ok, S(i, mul(x, y)) == mul(S(i, x), y))));
  solver.add(z3::forall(vars({x, y}, &i, nullptr), z3::implies(i_ok, S(i, div(x, y)) == div(S(i, x), y))));
  solver.add(z3::forall(x, y, mul(exp(x), exp(y)) == exp(add(x, y))));
  solver.add(z3::forall(x, y, mul(sqrt(x), sqrt(y)) == sqrt(mul(x, y))));
  // Subexpression.
  solver.add(z3::forall(x, sub(x, x)));
  solver.add(z3::forall(x, y, z, z3::implies(sub(x, y) && sub(y, z), sub(x, z))));
  solver.add(z3::forall(x, y, sub(x, add(x, y))));
  solver.add(z3::forall(x, y, sub(x, mul(x, y))));
  solver.add(z3::forall(x, y, sub(x, div(x, y))));
  solver.add(z3::forall(x, y, sub(y, div(x, y))));
  solver.add(z3::forall(x, sub(x, exp(x))));
  solver.add(z3::forall(x, sub(x, sqrt(x))));
  solver.add(z3::forall(x, sub(x, silu(x))));
  solver.add(z3::forall(vars({x}, &i, nullptr), z3::implies(i_ok, sub(x, S(i, x)))));
  solver.add(z3::forall(vars({x}, &i, nullptr), sub(x, apply(rms, i, x))));
  // Lemma (Mirage's): sum(j, x) = sum(j - i, sum(i, x)) contains sum(i, x).
  solver.add(z3::forall(vars({x}, &i, &j), z3::implies(i_ok && i_le_j, sub(S(i, x), S(j, x)))));
}

namespace {

struct Encoder {
  const ExprPool& pool;
  Z3Checker::Session& session;
  const std::vector<uint32_t>& primes;  // slot -> prime
  std::unordered_map<ExprId, z3::expr>& memo;

  z3::expr_vector exponents(const Size& k) {
    z3::expr_vector v(session.ctx);
    for (uint32_t prime : primes) v.push_back(session.ctx.int_val(static_cast<int>(k.exponent_of(prime))));
    while (static_cast<int>(v.size()) < session.slots) v.push_back(session.ctx.int_val(0));
    return v;
  }
  z3::expr fold(const z3::func_decl& f, std::span<const ExprId> kids) {
    z3::expr acc = encode(kids[0]);
    for (size_t i = 1; i < kids.size(); ++i) acc = f(acc, encode(kids[i]));
    return acc;
  }
  z3::expr encode(ExprId e) {
    if (auto it = memo.find(e); it != memo.end()) return it->second;
    std::span<const ExprId> kids = pool.kids(e);
    z3::expr result(session.ctx);
    switch (pool.kind(e)) {
      case ExprKind::Var: result = session.var(pool.var_index(e)); break;
      case ExprKind::Add: result = fold(session.add, kids); break;
      case ExprKind::Mul: result = fold(session.mul, kids); break;
      case ExprKind::Div: result = session.div(encode(kids[0]), encode(kids[1])); break;
      case ExprKind::Exp: result = session.exp(encode(kids[0])); break;
      case ExprKind::Sqrt: result = session.sqrt(encode(kids[0])); break;
      case ExprKind::Silu: result = session.silu(encode(kids[0])); break;
      case ExprKind::Sum: result = session.apply(session.sum, exponents(pool.size(e)), encode(kids[0])); break;
      case ExprKind::Rms: result = session.apply(session.rms, exponents(pool.size(e)), encode(kids[0])); break;
      case ExprKind::Huge: throw std::logic_error("huge expressions never reach the solver");
    }
    memo.emplace(e, result);
    return result;
  }
};

// The inputs and the primes of every size in e.
void scan(const ExprPool& pool, ExprId e, std::unordered_set<ExprId>& seen, std::vector<int>& vars,
          std::vector<uint32_t>& primes) {
  if (!seen.insert(e).second) return;
  if (pool.kind(e) == ExprKind::Var) vars.push_back(pool.var_index(e));
  const Size& k = pool.size(e);
  for (int i = 0; i < k.num_primes(); ++i)
    if (std::find(primes.begin(), primes.end(), k.prime(i)) == primes.end()) primes.push_back(k.prime(i));
  for (ExprId c : pool.kids(e)) scan(pool, c, seen, vars, primes);
}

}  // namespace

Z3Checker::Z3Checker(const ExprPool& pool, std::span<const ExprId> targets, int64_t timeout_ms, uint64_t rlimit)
    : pool_(pool),
      targets_(targets.begin(), targets.end()),
      timeout_ms_(static_cast<unsigned>(std::clamp<int64_t>(timeout_ms, 1, UINT_MAX))),
      rlimit_(static_cast<unsigned>(std::min<uint64_t>(rlimit, UINT_MAX))),
      uid_(next_uid.fetch_add(1)) {
  std::unordered_set<ExprId> seen;
  std::vector<int> vars;
  for (ExprId t : targets_) scan(pool_, t, seen, vars, primes_);
  std::sort(primes_.begin(), primes_.end());
}

Z3Checker::~Z3Checker() = default;

Z3Checker::Session& Z3Checker::session() {
  for (const SessionRef& r : tl_sessions)
    if (r.uid == uid_) return *r.session;
  auto s = std::make_unique<Session>(static_cast<int>(primes_.size()) + kSpareSlots);
  z3::params params(s->ctx);
  params.set("timeout", timeout_ms_);
  params.set("rlimit", rlimit_);
  s->solver.set(params);
  s->assert_axioms();
  Encoder enc{pool_, *s, primes_, s->memo};
  std::vector<z3::expr> vars;
  std::unordered_set<ExprId> seen;
  std::vector<int> target_vars;
  std::vector<uint32_t> unused;
  for (ExprId t : targets_) {
    s->targets.push_back(enc.encode(t));
    scan(pool_, t, seen, target_vars, unused);
  }
  for (int v : target_vars) {
    s->assert_distinct(s->var(v), vars);
    vars.push_back(s->var(v));
    s->target_vars.insert(v);
  }
  Session* raw = s.get();
  {
    std::lock_guard lock(mu_);
    sessions_.push_back(std::move(s));
  }
  tl_sessions.push_back({uid_, raw});
  return *raw;
}

Z3Answer Z3Checker::check(ExprId e) {
  if (pool_.kind(e) == ExprKind::Huge) return Z3Answer::Unknown;
  Session& s = session();
  std::unordered_set<ExprId> seen;
  std::vector<int> vars;
  std::vector<uint32_t> primes = primes_;
  scan(pool_, e, seen, vars, primes);
  if (primes.size() > primes_.size() + kSpareSlots) return Z3Answer::Unknown;
  try {
    std::unordered_map<ExprId, z3::expr> memo = s.memo;  // the targets' nodes keep their encoding
    Encoder enc{pool_, s, primes, memo};
    const z3::expr q = enc.encode(e);
    s.solver.push();
    struct Pop {
      z3::solver& solver;
      ~Pop() {
        try {
          solver.pop();
        } catch (const z3::exception&) {
        }
      }
    } pop{s.solver};
    std::vector<z3::expr> known;
    for (int v : s.target_vars) known.push_back(s.var(v));
    for (int v : vars) {
      if (s.target_vars.count(v)) continue;
      s.assert_distinct(s.var(v), known);
      known.push_back(s.var(v));
    }
    for (const z3::expr& t : s.targets) s.solver.add(!s.sub(q, t));
    const z3::check_result r = s.solver.check();
    return r == z3::unsat ? Z3Answer::Yes : r == z3::sat ? Z3Answer::No : Z3Answer::Unknown;
  } catch (const z3::exception&) {
    return Z3Answer::Unknown;
  }
}

}  // namespace ugs::expr::detail
