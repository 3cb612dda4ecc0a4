#include "search/distributed/state_wire.h"

#include "ugs/expr/op_expr.h"

namespace ugs::search_detail {

void rebuild_expressions(State& state, expr::ExprPool& pool) {
  const std::vector<expr::ExprId> kernel_exprs = expr::kernel_tensor_exprs(pool, state.kernel);
  state.kexpr.clear();
  for (expr::ExprId x : kernel_exprs) state.kexpr.push_back(x);
  state.bexpr.clear();
  if (!state.open) return;
  for (expr::ExprId x : expr::block_tile_exprs(pool, state.block, kernel_exprs)) state.bexpr.push_back(x);
}

void put_state(const uint8_t* encoded, size_t bytes, WireWriter& out) {
  out.put_bytes({reinterpret_cast<const char*>(encoded), bytes});
}

void get_state(WireReader& in, expr::ExprPool& pool, State& state) {
  const std::string_view bytes = in.get_bytes();
  decode(reinterpret_cast<const uint8_t*>(bytes.data()), state);
  rebuild_expressions(state, pool);
}

}  // namespace ugs::search_detail
