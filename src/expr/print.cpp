// Printing normal forms: sums with " + ", products with "*", fractions with " / ", reductions as
// sum(k, ...) and rms(k, ...). The syntax is the one parse_expr reads (include/ugs/expr/parse.h).
#include "ugs/expr/expr.h"

namespace ugs::expr {
namespace {

struct Printer {
  const ExprPool& pool;
  std::span<const std::string> names;
  std::string out;

  bool atomic(ExprId e) const {
    const ExprKind k = pool.kind(e);
    return k != ExprKind::Add && k != ExprKind::Mul && k != ExprKind::Div;
  }
  void wrapped(ExprId e, bool parens) {
    if (parens) out += '(';
    print(e);
    if (parens) out += ')';
  }
  void call(const char* f, ExprId arg, const Size* k) {
    out += f;
    out += '(';
    if (k) out += k->to_string() + ", ";
    print(arg);
    out += ')';
  }
  void print(ExprId e) {
    std::span<const ExprId> kids = pool.kids(e);
    switch (pool.kind(e)) {
      case ExprKind::Var: {
        const int i = pool.var_index(e);
        out += i < static_cast<int>(names.size()) ? names[i] : "x" + std::to_string(i);
        break;
      }
      case ExprKind::Add:
        for (size_t i = 0; i < kids.size(); ++i) {
          if (i) out += " + ";
          print(kids[i]);
        }
        break;
      case ExprKind::Mul:
        for (size_t i = 0; i < kids.size(); ++i) {
          if (i) out += '*';
          wrapped(kids[i], !atomic(kids[i]));
        }
        break;
      case ExprKind::Div:
        wrapped(kids[0], pool.kind(kids[0]) == ExprKind::Add);
        out += " / ";
        wrapped(kids[1], !atomic(kids[1]));
        break;
      case ExprKind::Exp: call("exp", kids[0], nullptr); break;
      case ExprKind::Sqrt: call("sqrt", kids[0], nullptr); break;
      case ExprKind::Silu: call("silu", kids[0], nullptr); break;
      case ExprKind::Sum: call("sum", kids[0], &pool.size(e)); break;
      case ExprKind::Rms: call("rms", kids[0], &pool.size(e)); break;
      case ExprKind::Huge: out += "huge"; break;
    }
  }
};

}  // namespace

std::string ExprPool::to_string(ExprId e) const { return to_string(e, {}); }

std::string ExprPool::to_string(ExprId e, std::span<const std::string> names) const {
  Printer pr{*this, names, {}};
  pr.print(e);
  return pr.out;
}

}  // namespace ugs::expr
