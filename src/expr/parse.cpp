// Recursive descent over the grammar of include/ugs/expr/parse.h.
#include "ugs/expr/parse.h"

#include <cctype>
#include <stdexcept>

namespace ugs::expr {
namespace {

class Parser {
 public:
  Parser(ExprPool& pool, std::string_view text, std::span<const std::string> names)
      : pool_(pool), text_(text), names_(names) {}

  ExprId all() {
    const ExprId e = sum_level();
    skip();
    if (pos_ != text_.size()) fail("unexpected text");
    return e;
  }

 private:
  [[noreturn]] void fail(const char* why) const {
    throw std::invalid_argument("expression '" + std::string(text_) + "' at " + std::to_string(pos_) + ": " + why);
  }
  void skip() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(c == ')' ? "expected ')'" : c == '(' ? "expected '('" : "expected ','");
  }
  std::string word() {
    skip();
    const size_t b = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    return std::string(text_.substr(b, pos_ - b));
  }

  ExprId sum_level() {
    ExprId e = product_level();
    while (eat('+')) e = pool_.add(e, product_level());
    return e;
  }
  ExprId product_level() {
    ExprId e = unary();
    for (;;) {
      if (eat('*')) {
        e = pool_.mul(e, unary());
      } else if (eat('/')) {
        e = pool_.div(e, unary());
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
      return w == "exp" ? pool_.exp(a) : w == "sqrt" ? pool_.sqrt(a) : pool_.silu(a);
    }
    if (w == "sum" || w == "rms") {
      expect('(');
      const std::string k = word();
      if (k.empty() || k.find_first_not_of("0123456789") != std::string::npos) fail("expected a size");
      expect(',');
      const ExprId a = sum_level();
      expect(')');
      return w == "sum" ? pool_.sum(std::stoll(k), a) : pool_.rms(std::stoll(k), a);
    }
    for (size_t v = 0; v < names_.size(); ++v)
      if (names_[v] == w) return pool_.var(static_cast<int>(v));
    if (w.size() > 1 && w[0] == 'x' && w.find_first_not_of("0123456789", 1) == std::string::npos)
      return pool_.var(std::stoi(w.substr(1)));
    fail("unknown name");
  }

  ExprPool& pool_;
  std::string_view text_;
  std::span<const std::string> names_;
  size_t pos_ = 0;
};

}  // namespace

ExprId parse_expr(ExprPool& pool, std::string_view text, std::span<const std::string> names) {
  return Parser(pool, text, names).all();
}

}  // namespace ugs::expr
