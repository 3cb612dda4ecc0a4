#include "search/distributed/state_wire.h"

#include "ugs/expr/op_expr.h"

namespace ugs::search_detail {

void rebuild_expressions(State& s, expr::ExprPool& pool) {
  const std::vector<expr::ExprId> k = expr::kernel_tensor_exprs(pool, s.g);
  s.kexpr.clear();
  for (expr::ExprId x : k) s.kexpr.push_back(x);
  s.bexpr.clear();
  if (!s.open) return;
  for (expr::ExprId x : expr::block_tile_exprs(pool, s.b, k)) s.bexpr.push_back(x);
}

void put_state(const uint8_t* encoded, size_t bytes, WireWriter& w) {
  w.put_bytes({reinterpret_cast<const char*>(encoded), bytes});
}

void get_state(WireReader& r, expr::ExprPool& pool, State& s) {
  const std::string_view b = r.get_bytes();
  decode(reinterpret_cast<const uint8_t*>(b.data()), s);
  rebuild_expressions(s, pool);
}

}  // namespace ugs::search_detail
