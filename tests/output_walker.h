#pragma once
// A walk through every state the abstract-expression check keeps (the expression dead-end checks of
// output_symbols.h off), asserting what those checks rest on: a block op's result holds no feature
// its operands and its kind do not account for, and in a block graph no kernel op can follow, a
// state a check calls dead (more ops needed than left, or an output's atom that no tile can make)
// leads to no completion whose saved tiles have the outputs' expressions. Shared by the tests of
// output_symbols.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "search/generator/output_symbols.h"
#include "search/generator/reach.h"
#include "ugs/expr/op_expr.h"
#include "ugs/expr/oracle.h"
#include "ugs/io/program.h"
#include "ugs/search/generator/generator.h"

namespace ugs::search_detail {

struct Walk {
  int64_t block_ops = 0, dead = 0, dead_atoms = 0, completing = 0;
  std::vector<bool> kinds_seen = std::vector<bool>(64, false);
};

struct Walker {
  const Generator& gen;
  expr::Oracle& oracle;
  const OutputSymbols& check;
  Walk seen;

  void walk(const State& state, bool dead) {
    const SearchConfig& cfg = gen.config();
    const expr::ExprPool& pool = gen.pool();
    if (state.open && kernel_ops_after_block(state.kernel, cfg) <= 0) {
      OutputSymbols::Have have;
      for (expr::ExprId e : state.bexpr) have.add(pool.facts(e));
      const int64_t left = cfg.max_block_ops - state.block.inputs.size() - state.block.ops.size();
      if (!dead && check.ops_needed(have) > left) {
        dead = true;
        ++seen.dead;
      }
      if (!dead && !check.atoms_reachable(state.bexpr.span(), pool)) {
        dead = true;
        ++seen.dead_atoms;
      }
    }
    std::vector<KernelGraph> done;
    gen.completions(state, done);
    if (!done.empty() && state.kernel.blocks.size() > 0) {
      const std::vector<expr::ExprId> outs = expr::output_exprs(gen.pool(), done.front());
      const bool makes_outputs = std::all_of(outs.begin(), outs.end(), [&](expr::ExprId e) { return check.is_output(e); });
      if (makes_outputs) {
        ++seen.completing;
        ASSERT_FALSE(dead) << "a state called dead completes";
      }
    }
    std::vector<Step> steps;
    PruneCounts pruned;
    gen.candidates(state, steps, pruned);
    for (const Step& st : steps) {
      if (st.kind == Step::Kind::BlockOp) {  // every candidate, kept or not: every op kind is met
        ++seen.block_ops;
        seen.kinds_seen[static_cast<int>(st.op.kind)] = true;
        OutputSymbols::Have operands;
        for (int i = 0; i < arity(st.op.kind); ++i) operands.add(pool.facts(state.bexpr[st.op.in[i]]));
        const expr::ExprFacts& result = pool.facts(st.query);
        const OpFeatures made = features_made_by(st.op.kind);
        const std::string op(name_of(st.op.kind));
        EXPECT_EQ(OutputSymbols::features(result.symbols) & ~OutputSymbols::features(operands.symbols) & ~made.features, 0)
            << op << " makes a feature it does not list";
        EXPECT_LE(std::popcount(result.atoms & ~operands.atoms), made.atoms) << op << " makes an atom";
        if ((result.primes & ~operands.primes) != 0) {
          EXPECT_NE(made.features & OutputSymbols::Prime, 0) << op << " makes a prime";
        }
        EXPECT_EQ(result.vars & ~operands.vars, 0u) << op << " makes a variable";
        if (::testing::Test::HasFailure()) return;
      }
      if (st.query != kNoQuery && !oracle.is_subexpr(st.query)) continue;
      walk(gen.apply(state, st), dead);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
};

// Walks p's space under cfg whole, the expression dead-end checks off, and returns what it met.
inline Walk walk_space(const Program& p, SearchConfig cfg) {
  cfg.expr_reach = 0;
  expr::ExprPool pool;
  const Generator gen(p.graph, cfg, pool);
  const std::vector<expr::ExprId> outputs = expr::output_exprs(pool, p.graph);
  expr::Oracle oracle(pool, outputs);
  const OutputSymbols check(outputs, pool, cfg);
  Walker walker{gen, oracle, check, {}};
  walker.walk(gen.root(), false);
  return walker.seen;
}

}  // namespace ugs::search_detail
