#include "search/generator/output_symbols.h"

#include <algorithm>
#include <bit>

namespace ugs::search_detail {

namespace {

using F = OutputSymbols::Feature;

constexpr uint16_t symbol(expr::ExprKind kind) { return uint16_t{1} << static_cast<int>(kind); }

// An expression's facts that only grow along a graph: all but the Add and Mul symbols, which the
// normal form makes from others and folds away again.
OutputSymbols::Have grown(const expr::ExprFacts& facts) {
  OutputSymbols::Have have;
  have.add(facts);
  have.symbols &= static_cast<uint16_t>(~(symbol(expr::ExprKind::Add) | symbol(expr::ExprKind::Mul)));
  return have;
}

bool within(const OutputSymbols::Have& a, const OutputSymbols::Have& b) {
  return (a.vars & ~b.vars) == 0 && (a.atoms & ~b.atoms) == 0 && (a.primes & ~b.primes) == 0 &&
         (a.symbols & ~b.symbols) == 0;
}

// The silu and rms nodes below e, each once (an output's tree is small).
void collect_atoms(const expr::ExprPool& pool, expr::ExprId e, std::vector<expr::ExprId>& out) {
  const expr::ExprKind kind = pool.kind(e);
  if ((kind == expr::ExprKind::Silu || kind == expr::ExprKind::Rms) && std::find(out.begin(), out.end(), e) == out.end())
    out.push_back(e);
  for (expr::ExprId kid : pool.kids(e)) collect_atoms(pool, kid, out);
}

}  // namespace

// As op_expr.cpp builds each op's expression: a sum or rms over a size brings its primes.
OpFeatures features_made_by(OpKind kind) {
  switch (kind) {
    case OpKind::Exp: return {F::Exp, 0};
    case OpKind::Sqrt: return {F::Sqrt, 0};
    case OpKind::Silu: return {F::Silu, 1};
    case OpKind::Div: return {F::Div, 0};
    case OpKind::Matmul:
    case OpKind::ReduceSum:
    case OpKind::ReduceSumTo:
    case OpKind::AccumSum:
    case OpKind::AccumSumLastdim:
    case OpKind::AccumSumLastdimTo: return {F::Sum | F::Prime, 0};
    case OpKind::RmsNorm: return {F::Div | F::Rms | F::Prime, 1};
    case OpKind::AccumRmsLastdim: return {F::Rms | F::Prime, 1};
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Square: return {0, 0};
    default: return {0x7F, OutputSymbols::kMaxAtoms};  // an op not listed here: it may make anything
  }
}

uint8_t OutputSymbols::features(uint16_t symbols) {
  uint8_t f = 0;
  constexpr std::pair<expr::ExprKind, uint8_t> kMade[] = {
      {expr::ExprKind::Exp, F::Exp}, {expr::ExprKind::Sqrt, F::Sqrt}, {expr::ExprKind::Silu, F::Silu},
      {expr::ExprKind::Sum, F::Sum}, {expr::ExprKind::Rms, F::Rms},   {expr::ExprKind::Div, F::Div}};
  for (const auto& [kind, feature] : kMade)
    if (symbols & symbol(kind)) f |= feature;
  return f;
}

OutputSymbols::OutputSymbols(std::span<const expr::ExprId> outputs, const expr::ExprPool& pool,
                             const SearchConfig& cfg)
    : outputs_(outputs.begin(), outputs.end()) {
  vars_ = atoms_ = primes_ = ~uint64_t{0};
  symbols_ = ~uint16_t{0};
  for (expr::ExprId o : outputs) {
    const expr::ExprFacts& f = pool.facts(o);
    vars_ &= f.vars;
    atoms_ &= f.atoms;
    primes_ &= f.primes;
    symbols_ &= f.symbols;
  }
  if (outputs.empty()) vars_ = atoms_ = primes_ = symbols_ = 0;
  std::vector<expr::ExprId> common;
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::vector<expr::ExprId> atoms;
    collect_atoms(pool, outputs[i], atoms);
    if (i == 0)
      common = std::move(atoms);
    else
      std::erase_if(common, [&](expr::ExprId a) { return std::find(atoms.begin(), atoms.end(), a) == atoms.end(); });
  }
  for (expr::ExprId atom : common) {
    const expr::ExprId argument = pool.kids(atom)[0];
    const uint64_t bit = pool.facts(atom).atoms & ~pool.facts(argument).atoms;
    if (bit != 0) atoms_required_.push_back({bit, grown(pool.facts(argument))});
  }
  // Fewest ops first: a round adds one op to every entry's best, until none improves.
  for (auto& row : need_) row.fill(kNever);
  need_[0][0] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (int mask = 0; mask < kFeatureMasks; ++mask)
      for (int atoms = 0; atoms <= kMaxAtoms; ++atoms)
        for (OpKind kind : cfg.block_ops) {
          const OpFeatures made = features_made_by(kind);
          const int rest_mask = mask & ~made.features, rest_atoms = std::max(0, atoms - made.atoms);
          if (rest_mask == mask && rest_atoms == atoms) continue;  // the op makes none of them
          if (need_[rest_mask][rest_atoms] + 1 < need_[mask][atoms]) {
            need_[mask][atoms] = need_[rest_mask][rest_atoms] + 1;
            changed = true;
          }
        }
  }
}

int OutputSymbols::ops_needed(const Have& have) const {
  if ((vars_ & ~have.vars) != 0) return kNever;  // no op makes a variable
  uint8_t missing = features(symbols_ & ~have.symbols);
  if ((primes_ & ~have.primes) != 0) missing |= F::Prime;
  // Each op makes at most one atom, and an atom sets one bit of the Bloom mask.
  const int atoms = std::min(kMaxAtoms, std::popcount(atoms_ & ~have.atoms));
  return need_[missing][atoms];
}

bool OutputSymbols::atoms_reachable(std::span<const expr::ExprId> tiles, const expr::ExprPool& pool) const {
  uint64_t held = 0;
  for (expr::ExprId t : tiles) held |= pool.facts(t).atoms;
  for (const RequiredAtom& atom : atoms_required_) {
    if ((held & atom.bit) != 0) continue;  // held, or its bit is another atom's
    if (std::none_of(tiles.begin(), tiles.end(), [&](expr::ExprId t) { return within(grown(pool.facts(t)), atom.argument); }))
      return false;
  }
  return true;
}

}  // namespace ugs::search_detail
