// Full-size reference μGraphs (labelled slow): one test per field and the float64 check each.
#include <gtest/gtest.h>

#include <string_view>

#include "test_util.h"
#include "ugs/eval/verify.h"

namespace ugs {
namespace {

TEST(FullSizeReferences, VerifyInBothFieldsAndInFloat64) {
  for (const auto& [program, name] : test::kEveryReference) {
    if (std::string_view(program).ends_with("_small")) continue;
    SCOPED_TRACE(name);
    const Program p = load_program(program);
    const KernelGraph g = test::reference(name);
    for (FieldKind f : {FieldKind::Wide, FieldKind::Mirage}) {
      VerifyOptions opt;
      opt.field = f;
      opt.tests = 1;
      opt.float_check = f == FieldKind::Wide;
      const VerifyResult r = verify(p.graph, g, opt);
      EXPECT_TRUE(r.equivalent) << r.reason;
      if (opt.float_check) {
        EXPECT_LT(r.float_rel_error, 1e-9);
      }
    }
  }
}

}  // namespace
}  // namespace ugs
