#include "ugs/eval/field_kind.h"

namespace ugs {

std::optional<FieldKind> field_from_name(std::string_view s) {
  if (s == WideField::name) return FieldKind::Wide;
  if (s == MirageField::name) return FieldKind::Mirage;
  return std::nullopt;
}

std::string_view name_of(FieldKind f) { return f == FieldKind::Mirage ? MirageField::name : WideField::name; }

}  // namespace ugs
