#include "search/distributed/z3_share.h"

#include "search/distributed/expr_wire.h"

namespace ugs::search_detail {

void put_decisions(const expr::ExprPool& pool, std::span<const Decision> decisions, WireWriter& out) {
  std::vector<expr::ExprId> ids;
  std::vector<uint8_t> answers;
  for (const auto& [e, keep] : decisions) {
    ids.push_back(e);
    answers.push_back(keep);
  }
  put_exprs(pool, ids, out);
  out.put_all(answers);
}

std::vector<Decision> learn_decisions(expr::Oracle& oracle, expr::ExprPool& pool, WireReader& in) {
  const std::vector<expr::ExprId> ids = get_exprs(pool, in);
  const std::vector<uint8_t> answers = in.get_all<uint8_t>();
  std::vector<Decision> decisions;
  for (size_t i = 0; i < ids.size(); ++i) {
    oracle.learn(ids[i], answers.at(i) != 0);
    decisions.emplace_back(ids[i], answers[i] != 0);
  }
  return decisions;
}

}  // namespace ugs::search_detail
