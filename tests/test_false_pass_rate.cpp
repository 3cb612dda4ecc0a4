// How often one finite-field test passes a wrong μGraph (labelled slow: 1000 seeds per mutant).
// Mirage's small field (227/113) on whole tensors rejects every mutant here; on a 1×1 output one
// element decides and it errs about once in q = 113. The wide field must never err.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "reference_mutants.h"
#include "test_util.h"
#include "ugs/eval/draws.h"
#include "ugs/eval/evaluator.h"
#include "ugs/field/field.h"
#include "ugs/ir/canonical.h"

namespace ugs {
namespace {

// Tests of the mutants of one program, one per seed: the seed's inputs, ω and the program's output
// are made once for all of them. Seeds run in parallel (the evaluator's own loops then run serially
// inside, which for these small tensors is faster than splitting them).
template <class A>
std::vector<int> passes_per_mutant(const KernelGraph& program, const std::vector<const test::MutantCase*>& cases,
                                   int seeds) {
  std::vector<int> passes(cases.size(), 0);
#pragma omp parallel for schedule(dynamic, 8)
  for (int s = 0; s < seeds; ++s) {
    A ar;
    ar.omega = omega_of_seed<A>(s);
    const auto in = make_inputs<A>(program, s);
    const auto want = evaluate(ar, program, std::span(in))[0].data;
    for (size_t k = 0; k < cases.size(); ++k)
      if (evaluate(ar, cases[k]->graph, std::span(in))[0].data == want) {
#pragma omp atomic
        ++passes[k];
      }
  }
  return passes;
}

TEST(References, MirageFieldFalsePassRateOver1000Seeds) {
  constexpr int kSeeds = 1000;
  const std::vector<test::MutantCase> all = test::all_mutant_cases();
  std::map<uint64_t, std::vector<const test::MutantCase*>> by_program;  // in order of first mutant
  std::vector<uint64_t> order;
  for (const test::MutantCase& c : all) {
    if (c.interface_differs) continue;
    const uint64_t h = structural_hash(c.program);
    if (!by_program.count(h)) order.push_back(h);
    by_program[h].push_back(&c);
  }
  int tests = 0, passes = 0, whole_tensor_passes = 0;
  for (uint64_t h : order) {
    const std::vector<const test::MutantCase*>& cases = by_program[h];
    const KernelGraph& program = cases[0]->program;
    const std::vector<int> mirage = passes_per_mutant<MirageArith>(program, cases, kSeeds);
    const std::vector<int> wide = passes_per_mutant<WideArith>(program, cases, 100);
    const bool one_element = program.shape(program.outputs[0]).numel() == 1;
    for (size_t k = 0; k < cases.size(); ++k) {
      const int n = mirage[k];
      std::printf("  mirage field passed %4d / %d: %s\n", n, kSeeds, cases[k]->name.c_str());
      tests += kSeeds;
      passes += n;
      if (!one_element) whole_tensor_passes += n;
      if (cases[k]->name == "1x1: exp(2a) for exp(a)") {
        EXPECT_GE(n, 1);  // about 1 in 113: exp(2a) = exp(a) exactly when a ≡ 0 (mod q)
        EXPECT_LE(n, 30);
      }
      EXPECT_EQ(wide[k], 0) << cases[k]->name;
    }
  }
  std::printf("mirage-field false-pass rate: %d of %d mutant tests = %.5f (whole tensors: %d)\n", passes, tests,
              static_cast<double>(passes) / tests, whole_tensor_passes);
  const auto tested = std::count_if(all.begin(), all.end(), [](const test::MutantCase& c) { return !c.interface_differs; });
  EXPECT_EQ(tests, tested * kSeeds);  // the grouping by program left none out
  EXPECT_EQ(whole_tensor_passes, 0);
}

}  // namespace
}  // namespace ugs
