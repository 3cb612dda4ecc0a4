#pragma once
// Abstract expressions (docs/design.md §4), hash-consed in normal form: every ExprId names one class of terms
// equal under the equivalence axioms, so two tensors have equivalent expressions exactly when their
// ids are equal, and the oracle's cache, a batch's deduplication and "occurs in the target" are id
// comparisons. An op's expression is built from its operands' (one step per op, memoized), never
// from the whole graph.
//
// The normal form of an expression is a sum of summands ("terms"), each
//     k · a1 · ... · an · exp(E) · sqrt(R) / D
// with k a reduction size (sums of equal size factor out of products and fold into one), a_i the
// other atoms (inputs, silu(·), rms(k, ·)), at most one exp (exp(x)·exp(y) = exp(x+y)), at most one
// sqrt (sqrt(x)·sqrt(y) = sqrt(x·y)) and an optional denominator D (summands over the same D are one
// fraction, denominators multiply). Products distribute over sums. There is no cancellation, so
// add(x, x) is not sum(2, x) and div(mul(x, y), y) is not x. As a tree: Add(monomials and Div nodes),
// Div(numerator, D), Sum(k, product) for k > 1, Mul(atoms) for two or more factors.
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ugs/expr/size.h"

namespace ugs::expr {

using ExprId = uint32_t;
inline constexpr ExprId kNoExpr = ~ExprId{0};

// Huge: an expression past the pool's limits (ExprLimits). Every op on it gives Huge again; the
// oracle rejects it when the targets are within the limits (the limits bound quantities that a
// subexpression never exceeds, see ExprFacts).
enum class ExprKind : uint8_t { Var, Add, Mul, Div, Exp, Sqrt, Silu, Sum, Rms, Huge };

// Facts about the expression rooted at a node, computed once when it is interned from its children's.
// Each is monotone under the subexpression relation: if e ⊑ t under the axioms, e's facts lie within
// t's (masks a subset, counts no larger). No axiom creates or removes a variable, a function symbol,
// a prime of a reduction size or a silu or rms atom; and a subexpression of t is a factor of a sub-sum
// of t or of a sum inside t (structural.cpp), never with more summands or more factors per summand.
// These are the oracle's cheap rejections.
struct ExprFacts {
  uint64_t vars = 0;        // bit min(i, 63): input i occurs
  uint64_t atoms = 0;       // Bloom bits of the silu and rms atoms that occur (by node hash)
  uint64_t primes = 0;      // Bloom bits of the primes of every reduction size
  uint16_t symbols = 0;     // bit per ExprKind in the normal form (Add, Mul: iff max_terms, max_degree >= 2)
  uint16_t max_terms = 0;   // most summands of any sum inside (the root, atom arguments, denominators)
  uint16_t max_degree = 0;  // most factors of any summand inside
  uint8_t coverage = 0;     // inputs that occur plus kinds in symbols (popcounts, taken once here)

  // A necessary condition for "this ⊑ t".
  bool within(const ExprFacts& t) const;
};

struct ExprLimits {
  int max_terms = 256;   // summands of one sum
  int max_degree = 32;   // factors of one summand
};

namespace detail {
class Algebra;
struct PoolShard;
}  // namespace detail

class ExprPool {
 public:
  explicit ExprPool(ExprLimits limits = {});
  ~ExprPool();
  ExprPool(const ExprPool&) = delete;
  ExprPool& operator=(const ExprPool&) = delete;

  // Constructors of the algebra; all thread-safe, each returns the normal form of the result.
  ExprId var(int input);
  ExprId add(ExprId a, ExprId b);
  ExprId mul(ExprId a, ExprId b);
  ExprId div(ExprId a, ExprId b);
  ExprId exp(ExprId a);
  ExprId sqrt(ExprId a);
  ExprId silu(ExprId a);
  ExprId sum(int64_t k, ExprId a);  // k >= 1; sum(1, x) is x
  ExprId sum(const Size& k, ExprId a);
  ExprId rms(int64_t k, ExprId a);  // k >= 1
  ExprId rms(const Size& k, ExprId a);
  ExprId huge();

  // Node accessors; lock-free reads of immutable nodes.
  ExprKind kind(ExprId e) const { return node(e).kind; }
  std::span<const ExprId> kids(ExprId e) const { return node(e).kids; }
  int var_index(ExprId e) const { return node(e).var; }  // Var only
  const Size& size(ExprId e) const { return node(e).size; }  // Sum and Rms only
  const ExprFacts& facts(ExprId e) const { return node(e).facts; }
  uint64_t hash(ExprId e) const { return node(e).hash; }
  // The canonical order of a sum's or product's children: by hash, then id.
  bool before(ExprId a, ExprId b) const;
  // Summands of the normal form (a Div node counts its numerator's).
  int num_terms(ExprId e) const;
  const ExprLimits& limits() const { return limits_; }
  // Distinct for every pool of the process, never reused: names a pool's entries in per-thread memos.
  uint64_t id() const { return id_; }
  size_t num_nodes() const { return count_.load(std::memory_order_acquire); }

  // "sum(256, x0*x1) / rms(256, x0)"; inputs named x0, x1, ... or by `names`.
  std::string to_string(ExprId e) const;
  std::string to_string(ExprId e, std::span<const std::string> names) const;

 private:
  friend class detail::Algebra;
  struct Node {
    ExprKind kind = ExprKind::Var;
    int32_t var = -1;
    Size size;
    ExprFacts facts;
    uint64_t hash = 0;
    ExprId next_same_hash = kNoExpr;  // intern chain, guarded by the shard's lock
    std::vector<ExprId> kids;
  };
  static constexpr int kChunkBits = 12;
  static constexpr int kMaxChunks = 1 << 18;

  const Node& node(ExprId e) const {
    return dir_[e >> kChunkBits].load(std::memory_order_acquire)[e & ((1u << kChunkBits) - 1)];
  }
  // The one node for (kind, kids, size, var); kids already in canonical order.
  ExprId intern(ExprKind kind, std::span<const ExprId> ks, const Size& size = Size(), int32_t var = -1);
  Node* slot(ExprId e);
  ExprFacts make_facts(ExprKind kind, std::span<const ExprId> ks, const Size& size, int32_t var, uint64_t h) const;
  // Memo of op applications: (op, a, b, size) -> result.
  bool memo_find(uint64_t key_hash, uint32_t op, ExprId a, ExprId b, const Size& k, ExprId* out) const;
  void memo_put(uint64_t key_hash, uint32_t op, ExprId a, ExprId b, const Size& k, ExprId r);
  ExprId memoized(uint32_t op, ExprId a, ExprId b, const Size& k);

  ExprLimits limits_;
  const uint64_t id_;  // distinct for every pool of the process: names its entries in the threads' memo fronts
  std::unique_ptr<std::atomic<Node*>[]> dir_;
  std::atomic<uint32_t> count_{0};
  std::unique_ptr<detail::PoolShard[]> shards_;
  ExprId huge_ = kNoExpr;
};

}  // namespace ugs::expr
