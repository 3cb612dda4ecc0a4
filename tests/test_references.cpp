// The reference μGraphs verify against their programs; their hand-made mutants do not.
#include <gtest/gtest.h>

#include <algorithm>
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

}  // namespace
}  // namespace ugs
