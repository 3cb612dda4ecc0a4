// Recursive descent over the grammar of include/ugs/expr/parse.h.
#include "ugs/expr/parse.h"

#include <cctype>
#include <stdexcept>

namespace ugs::expr {
namespace {

class Parser {
 public:
  Parser(ExprPool& p, std::string_view s, std::span<const std::string> names) : p_(p), s_(s), names_(names) {}

  ExprId all() {
    const ExprId e = sum_level();
    skip();
    if (i_ != s_.size()) fail("unexpected text");
    return e;
  }

 private:
  [[noreturn]] void fail(const char* why) const {
    throw std::invalid_argument("expression '" + std::string(s_) + "' at " + std::to_string(i_) + ": " + why);
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(c == ')' ? "expected ')'" : c == '(' ? "expected '('" : "expected ','");
  }
  std::string word() {
    skip();
    const size_t b = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
    return std::string(s_.substr(b, i_ - b));
  }

  ExprId sum_level() {
    ExprId e = product_level();
    while (eat('+')) e = p_.add(e, product_level());
    return e;
  }
  ExprId product_level() {
    ExprId e = unary();
    for (;;) {
      if (eat('*')) {
        e = p_.mul(e, unary());
      } else if (eat('/')) {
        e = p_.div(e, unary());
      } else {
        return e;
      }
    }
  }
  ExprId unary() {
    if (eat('(')) {
      const ExprId e = sum_level();
      expect(')');
      return e;
    }
    const std::string w = word();
    if (w.empty()) fail("expected a name, a function or '('");
    if (w == "exp" || w == "sqrt" || w == "silu") {
      expect('(');
      const ExprId a = sum_level();
      expect(')');
      return w == "exp" ? p_.exp(a) : w == "sqrt" ? p_.sqrt(a) : p_.silu(a);
    }
    if (w == "sum" || w == "rms") {
      expect('(');
      const std::string k = word();
      if (k.empty() || k.find_first_not_of("0123456789") != std::string::npos) fail("expected a size");
      expect(',');
      const ExprId a = sum_level();
      expect(')');
      return w == "sum" ? p_.sum(std::stoll(k), a) : p_.rms(std::stoll(k), a);
    }
    for (size_t v = 0; v < names_.size(); ++v)
      if (names_[v] == w) return p_.var(static_cast<int>(v));
    if (w.size() > 1 && w[0] == 'x' && w.find_first_not_of("0123456789", 1) == std::string::npos)
      return p_.var(std::stoi(w.substr(1)));
    fail("unknown name");
  }

  ExprPool& p_;
  std::string_view s_;
  std::span<const std::string> names_;
  size_t i_ = 0;
};

}  // namespace

ExprId parse_expr(ExprPool& pool, std::string_view text, std::span<const std::string> names) {
  return Parser(pool, text, names).all();
}

}  // namespace ugs::expr
