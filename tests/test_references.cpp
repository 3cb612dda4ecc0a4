// The reference μGraphs verify against their programs; their hand-made mutants do not.
#include <gtest/gtest.h>

#include "reference_mutants.h"
#include "test_util.h"
#include "ugs/eval/verify.h"

namespace ugs {
namespace {

TEST(References, VerifyInBothFieldsAndInFloat64) {
  for (const char* name : test::kReferences) {
    SCOPED_TRACE(name);
    const Program p = load_program(name)  /* a reference shares its program's name */;
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

TEST(References, EveryReferenceHasTenMutants) {
  for (const char* name : test::kReferences) EXPECT_GE(test::mutants_of(name).size(), 10u) << name;
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
