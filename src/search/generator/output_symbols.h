#pragma once
// A dead-end check by expression inside a block graph that must make the program's outputs. When no
// kernel op can follow the block graph, a tile it saves is an output of the μGraph, and under the
// expression check's own premise (Mirage's Theorem 1: a μGraph is kept when its abstract expression
// is the program's) that tile's expression is an output's. Expression facts (expr.h, ExprFacts) only
// grow along a graph: a block op's result holds its operands' variables, function symbols, reduction
// primes and silu/rms atoms, plus what the op itself makes (an exp op an Exp, a matmul a Sum and the
// primes of its size, an rms_norm a Div, an Rms and one rms atom, ...). So the facts of the output
// that no tile holds yet are features the remaining ops must make, and a state whose missing features
// take more ops than it has left is never expanded (counted as `pruned.reach`). The fewest ops that
// make a set of missing features is a small cover problem, solved once per search into a table.
//
// The outputs' silu and rms atoms are nodes of their own (silu(A), rms(k, A)), made only by an op
// whose operand's expression is exactly the argument A: a silu op, an rms_norm or an rms accumulator.
// An operand is a tile or is built from tiles, and facts only grow, so a block graph one of whose
// missing atoms has no tile whose facts lie within A's can never make it: such a block graph is not
// opened. Only the inputs' expressions decide it, and ops can add no tile within A that the inputs
// lacked, so the openings' check is the whole check.
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "ugs/expr/expr.h"
#include "ugs/search/generator/config.h"

namespace ugs::search_detail {

// The features one block op of `kind` may add to its operands' facts: bits of OutputSymbols'
// feature mask, and how many silu/rms atoms (0 or 1). An over-approximation (a matmul over a
// length-1 dim makes no Sum): the bound stays a lower one.
struct OpFeatures {
  uint8_t features = 0;
  uint8_t atoms = 0;
};
OpFeatures features_made_by(OpKind kind);

class OutputSymbols {
 public:
  static constexpr int kNever = 1 << 20;
  // The features a tile set may lack: function symbols the ops make (Add and Mul are left out: the
  // normal form makes them from others), and "a prime of a reduction size".
  enum Feature : uint8_t { Exp = 1, Sqrt = 2, Silu = 4, Sum = 8, Rms = 16, Div = 32, Prime = 64 };
  static constexpr int kFeatureMasks = 128;
  static constexpr int kMaxAtoms = 15;  // missing atoms past this count as this many (a lower bound)

  // The facts gathered over a block graph's tiles.
  struct Have {
    uint64_t vars = 0, atoms = 0, primes = 0;
    uint16_t symbols = 0;
    void add(const expr::ExprFacts& f) {
      vars |= f.vars;
      atoms |= f.atoms;
      primes |= f.primes;
      symbols |= f.symbols;
    }
  };

  // `outputs`: the program's output expressions; the features required are those all of them have
  // (the tile saved may be any of them). Ops are the config's block ops.
  OutputSymbols(std::span<const expr::ExprId> outputs, const expr::ExprPool& pool, const SearchConfig& cfg);

  // The fewest block ops after which a tile set with `have` may hold an output's facts; kNever when
  // no number of ops can (a variable missing, or a feature no block op of the space makes).
  int ops_needed(const Have& have) const;

  // The function-symbol features of an expression's facts (not Prime: primes are compared as bits).
  static uint8_t features(uint16_t symbols);

  // Whether a block graph whose tiles have the expressions `tiles` may still make every silu and rms
  // atom of the outputs (above).
  bool atoms_reachable(std::span<const expr::ExprId> tiles, const expr::ExprPool& pool) const;

  // Whether `e` is an output's expression: a tile no op can consume is saved, so it must be one.
  bool is_output(expr::ExprId e) const { return std::find(outputs_.begin(), outputs_.end(), e) != outputs_.end(); }

 private:
  std::vector<expr::ExprId> outputs_;
  uint64_t vars_ = 0, atoms_ = 0, primes_ = 0;
  uint16_t symbols_ = 0;
  // The atoms every output holds: each one's own Bloom bit, and the facts of its argument that only
  // grow along a graph (an atom whose bit its argument shares is left out: its absence cannot be told).
  struct RequiredAtom {
    uint64_t bit = 0;
    Have argument;
  };
  std::vector<RequiredAtom> atoms_required_;
  // need_[features][atoms]: the fewest ops of the space that make those features and that many atoms.
  std::array<std::array<int, kMaxAtoms + 1>, kFeatureMasks> need_{};
};

}  // namespace ugs::search_detail
