#pragma once
// The field a run uses, chosen at run time (`--field wide|mirage`) and dispatched once to the
// arithmetic the evaluator is instantiated with.
#include <optional>
#include <string_view>

#include "ugs/field/field.h"

namespace ugs {

enum class FieldKind { Wide, Mirage };

std::optional<FieldKind> field_from_name(std::string_view s);
std::string_view name_of(FieldKind f);

// Calls f(arith) with the arithmetic of field `k` (ω left at 1: callers draw it per test).
template <class F>
decltype(auto) with_field(FieldKind k, F&& f) {
  if (k == FieldKind::Mirage) return f(MirageArith{});
  return f(WideArith{});
}

}  // namespace ugs
