// Names of op kinds, shapes and verdicts.
#include <string>

#include "ugs/ir/op.h"
#include "ugs/ir/shape.h"
#include "ugs/ir/verdict.h"

namespace ugs {

std::optional<OpKind> op_kind_from_name(std::string_view name) {
  for (int i = 0; i < kNumOpKinds; ++i)
    if (kOpInfo[i].name == name) return static_cast<OpKind>(i);
  return std::nullopt;
}

std::string to_string(const Shape& s) {
  std::string r = "[";
  for (int i = 0; i < s.rank; ++i) {
    if (i) r += ", ";
    r += std::to_string(s.d[i]);
  }
  return r + "]";
}

std::string_view describe(Verdict v) {
  switch (v) {
#define UGS_X(e, cause, msg) \
  case Verdict::e: return msg;
    UGS_VERDICTS(UGS_X)
#undef UGS_X
  }
  return "?";
}

Cause cause(Verdict v) {
  switch (v) {
#define UGS_X(e, c, msg) \
  case Verdict::e: return Cause::c;
    UGS_VERDICTS(UGS_X)
#undef UGS_X
  }
  return Cause::None;
}

}  // namespace ugs
