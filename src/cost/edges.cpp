// Edge classes (include/ugs/cost/edges.h).
#include "ugs/cost/edges.h"

namespace ugs {

std::string_view name_of(EdgeClass c) {
  switch (c) {
    case EdgeClass::Local: return "local";
    case EdgeClass::Regional: return "regional";
    case EdgeClass::Global: return "global";
  }
  return "?";
}

EdgeTally& EdgeTally::operator+=(const EdgeTally& o) {
  for (int i = 0; i < 3; ++i) count[i] += o.count[i];
  return *this;
}

Access access_of(OpKind k) {
  switch (k) {
    case OpKind::Matmul: return Access::Tile;
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Exp:
    case OpKind::Sqrt:
    case OpKind::Square:
    case OpKind::Silu: return Access::Elementwise;
    case OpKind::ReduceSum:
    case OpKind::RmsNorm:
    case OpKind::ReduceSumTo:
    case OpKind::AccumSum:
    case OpKind::AccumSumLastdim:
    case OpKind::AccumSumLastdimTo:
    case OpKind::AccumRmsLastdim: return Access::Reduction;
    case OpKind::Block: break;  // a whole kernel, never an operand's reader inside one
  }
  return Access::Tile;
}

EdgeClass classify(Access a, const Shape& operand, const Shape& result) {
  switch (a) {
    case Access::Elementwise: return operand == result ? EdgeClass::Local : EdgeClass::Regional;
    case Access::Reduction: return EdgeClass::Local;
    case Access::Tile: return EdgeClass::Regional;
  }
  return EdgeClass::Regional;
}

}  // namespace ugs
