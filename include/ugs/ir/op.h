#pragma once
// Op kinds, their static properties, and the Op record shared by programs, kernel graphs and block
// graphs. Everything here is generated from op_kinds.def.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ugs {

enum class OpKind : uint8_t {
#define UGS_OP(e, name, arity, where, attrs) e,
#include "ugs/ir/op_kinds.def"
#undef UGS_OP
};

enum class OpWhere : uint8_t { Both, Block, Accum, Kernel };
enum class OpAttrs : uint8_t { None, Dim, DimTo, To };

struct OpInfo {
  std::string_view name;
  int arity;
  OpWhere where;
  OpAttrs attrs;
};

inline constexpr std::array kOpInfo = {
#define UGS_OP(e, name, arity, where, attrs) OpInfo{name, arity, OpWhere::where, OpAttrs::attrs},
#include "ugs/ir/op_kinds.def"
#undef UGS_OP
};
inline constexpr int kNumOpKinds = static_cast<int>(kOpInfo.size());

constexpr const OpInfo& info(OpKind k) { return kOpInfo[static_cast<int>(k)]; }
constexpr std::string_view name_of(OpKind k) { return info(k).name; }
constexpr int arity(OpKind k) { return info(k).arity; }
constexpr bool is_accumulator(OpKind k) { return info(k).where == OpWhere::Accum; }
constexpr bool is_commutative(OpKind k) { return k == OpKind::Add || k == OpKind::Mul; }
constexpr bool has_dim(OpKind k) { return info(k).attrs == OpAttrs::Dim || info(k).attrs == OpAttrs::DimTo; }
constexpr bool has_to(OpKind k) { return info(k).attrs == OpAttrs::DimTo || info(k).attrs == OpAttrs::To; }
// exp-like ops count toward the LAX limit of one exp per path (silu is x * exp(x)).
constexpr bool is_exp_like(OpKind k) { return k == OpKind::Exp || k == OpKind::Silu; }

std::optional<OpKind> op_kind_from_name(std::string_view name);

// One op of a program, a kernel graph (predefined kinds) or a block graph. Operands are tensor indices
// in the enclosing graph; `dim` and `to` are attributes, zero when the kind has none.
struct Op {
  OpKind kind = OpKind::Add;
  int8_t dim = 0;
  int32_t to = 0;
  std::array<int32_t, 2> in{-1, -1};

  friend bool operator==(const Op&, const Op&) = default;
};

}  // namespace ugs
