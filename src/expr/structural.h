#pragma once
// The oracle's structural decision (no solver): is e a subexpression of a target under docs/design.md §4's
// axioms, read off the normal forms. Internal to src/expr; the reasoning is in structural.cpp.
#include <span>
#include <unordered_set>
#include <vector>

#include "divide.h"

namespace ugs::expr::detail {

enum class Answer : uint8_t { No, Yes, Unknown };

class StructuralIndex {
 public:
  StructuralIndex(ExprPool& pool, std::span<const ExprId> targets);
  // Thread-safe (the pool interns concurrently; the index is read-only).
  Answer decide(ExprId e) const;
  bool targets_huge() const { return targets_huge_; }

 private:
  // A place where a subexpression can sit: a target, an atom's argument or a denominator inside one.
  struct Site {
    ExprId node;
    std::vector<std::pair<TermKey, Term>> terms;  // its summands, sorted by key
  };
  void add_sites(ExprId target);
  Answer match(Algebra& alg, const std::vector<Term>& e, const Site& w) const;

  ExprPool& pool_;
  std::vector<ExprFacts> target_facts_;
  std::unordered_set<ExprId> nodes_;  // every node of every target's normal form
  std::vector<Site> sites_;
  bool targets_huge_ = false;
};

}  // namespace ugs::expr::detail
