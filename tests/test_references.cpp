// The reference μGraphs verify against their programs; their hand-made mutants do not.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>

#include "reference_mutants.h"
#include "test_util.h"
#include "ugs/eval/verify.h"

namespace ugs {
namespace {

// The small references here (full size in test_references_full, labelled slow): kReferences and
// gqa_small_loop, the FlashDecoding pair that adds the partial results over its loop.
TEST(References, VerifyInBothFieldsAndInFloat64) {
  for (const auto& [program, name] : test::kEveryReference) {
    if (!std::string_view(program).ends_with("_small")) continue;
    SCOPED_TRACE(name);
    const Program p = load_program(program);
    const KernelGraph g = test::reference(name);
    for (FieldKind f : {FieldKind::Wide, FieldKind::Mirage}) {
      VerifyOptions opt;
      opt.field = f;
      opt.tests = 5;
      const VerifyResult r = verify(p.graph, g, opt);
      EXPECT_TRUE(r.equivalent) << r.reason;
      EXPECT_EQ(r.tests_passed, 5);
      EXPECT_LT(r.float_rel_error, 1e-9);
    }
  }
}

TEST(References, EveryReferenceFileIsListed) {
  std::set<std::string> listed, files;
  for (const auto& [program, name] : test::kEveryReference) listed.insert(name);
  for (const auto& f : std::filesystem::directory_iterator(test::source_path("experiments/mugraphs")))
    if (f.path().extension() == ".json") files.insert(f.path().stem().string());
  EXPECT_EQ(files, listed) << "add the new reference to test::kEveryReference";
}

// Ten per reference that a finite-field test must catch, besides those whose outputs have another
// shape (rejected before any test).
TEST(References, EveryReferenceHasTenMutants) {
  const std::vector<test::MutantCase> cases = test::all_mutant_cases();
  for (const char* name : test::kReferences) {
    const std::string prefix = std::string(name) + ": ";
    const auto tested = std::count_if(cases.begin(), cases.end(), [&](const test::MutantCase& c) {
      return c.name.starts_with(prefix) && !c.interface_differs;
    });
    EXPECT_GE(tested, 10) << name;
  }
}

TEST(References, MutantsAreRejectedInTheWideField) {
  for (const test::MutantCase& c : test::all_mutant_cases()) {
    SCOPED_TRACE(c.name);
    VerifyOptions opt;
    opt.float_check = false;
    const VerifyResult r = verify(c.program, c.graph, opt);
    EXPECT_FALSE(r.equivalent);
    if (c.interface_differs) {
      EXPECT_EQ(r.reason.rfind("outputs differ", 0), 0u) << r.reason;
      continue;
    }
    EXPECT_EQ(r.tests_run, 1) << "the first wide test must already reject it";
    // The mutant is really wrong, not an equivalent rewrite: float64 disagrees too.
    EXPECT_GT(float_rel_error(c.program, c.graph, 3), 1e-6);
  }
}

// The search's bulk confirmation: field test outcomes computed elsewhere (here one by one with each
// test's seed, as a device backend gets them) give verify's answer, reason and all.
TEST(References, VerifyWithOutsideFieldTestsAnswersAsVerify) {
  const std::vector<test::MutantCase> cases = test::all_mutant_cases();
  for (size_t i = 0; i < cases.size(); i += 7) {
    const test::MutantCase& c = cases[i];
    SCOPED_TRACE(c.name);
    VerifyOptions opt;
    opt.tests = 2;
    opt.seed = 11;
    const VerifyReference ref(c.program, opt);
    std::vector<uint8_t> passes;
    for (int t = 0; t < opt.tests; ++t)
      passes.push_back(interface_mismatch(c.program, c.graph).empty() &&
                       field_test(opt.field, c.program, c.graph, field_test_seed(opt, t)));
    const VerifyResult want = ref.verify(c.graph), got = ref.verify_with(c.graph, passes);
    EXPECT_FALSE(got.equivalent);
    EXPECT_EQ(got.equivalent, want.equivalent);
    EXPECT_EQ(got.reason, want.reason);
    EXPECT_EQ(got.tests_passed, want.tests_passed);
  }
  const Program p = load_program("rmsnorm_linear_small");
  const KernelGraph g = test::reference("rmsnorm_linear_small");
  VerifyOptions one;
  one.tests = 1;
  const VerifyReference ref(p.graph, one);
  const uint8_t pass = 1, fail = 0;
  EXPECT_TRUE(ref.verify_with(g, std::span(&pass, 1)).equivalent);
  EXPECT_EQ(ref.verify_with(g, std::span(&pass, 1)).float_rel_error, ref.verify(g).float_rel_error);
  const VerifyResult r = ref.verify_with(g, std::span(&fail, 1));
  EXPECT_FALSE(r.equivalent);
  EXPECT_EQ(r.reason, "finite-field test 1 of 1 (wide field) gives different outputs");
}

// A raised stop: no test runs and there is no answer; the reference stays whole, so the next
// confirmation answers as a fresh one, zero divisors included. A stop that stays down changes nothing.
TEST(References, AStoppedVerifyAnswersNothingAndLeavesTheReferenceWhole) {
  const Program p = load_program("rmsnorm_linear_small");
  const KernelGraph g = test::reference("rmsnorm_linear_small");
  VerifyOptions opt;
  opt.seed = 5;
  const VerifyReference ref(p.graph, opt);
  std::atomic<bool> stop{true};
  const VerifyResult cut = ref.verify(g, &stop);
  EXPECT_TRUE(cut.stopped);
  EXPECT_FALSE(cut.equivalent);
  EXPECT_EQ(cut.tests_run, 0);
  stop = false;
  const VerifyResult want = verify(p.graph, g, opt), got = ref.verify(g, &stop);
  EXPECT_TRUE(got.equivalent) << got.reason;
  EXPECT_FALSE(got.stopped);
  EXPECT_EQ(got.tests_passed, want.tests_passed);
  EXPECT_EQ(got.zero_divisors, want.zero_divisors);
  EXPECT_EQ(got.float_rel_error, want.float_rel_error);
  const std::vector<test::MutantCase> mutants = test::all_mutant_cases();
  const test::MutantCase& bad =
      *std::find_if(mutants.begin(), mutants.end(), [](const test::MutantCase& c) { return !c.interface_differs; });
  const VerifyReference bad_ref(bad.program, opt);
  EXPECT_EQ(bad_ref.verify(bad.graph, &stop).reason, verify(bad.program, bad.graph, opt).reason);
}

// Confirmations side by side on one reference (a batch's, each on its thread) make its cases between
// them, whichever claims each; every one answers as a fresh reference answers alone.
TEST(References, ConfirmationsSideBySideAnswerAsOneAlone) {
  std::vector<test::MutantCase> cases = test::all_mutant_cases();
  for (const char* name : test::kReferences) cases.push_back({name, load_program(name).graph, test::reference(name), false});
  for (size_t i = 0; i < cases.size(); i += 3) {
    const test::MutantCase& c = cases[i];
    SCOPED_TRACE(c.name);
    VerifyOptions opt;
    opt.seed = 17;
    const VerifyResult want = verify(c.program, c.graph, opt);
    const VerifyReference ref(c.program, opt);
    std::vector<VerifyResult> got(4);
#pragma omp parallel for num_threads(4) schedule(static, 1)
    for (int t = 0; t < 4; ++t) got[t] = ref.verify(c.graph);
    for (const VerifyResult& r : got) {
      EXPECT_EQ(r.equivalent, want.equivalent);
      EXPECT_EQ(r.reason, want.reason);
      EXPECT_EQ(r.tests_passed, want.tests_passed);
      EXPECT_EQ(r.zero_divisors, want.zero_divisors);
      EXPECT_EQ(r.float_rel_error, want.float_rel_error);
    }
  }
}

}  // namespace
}  // namespace ugs
