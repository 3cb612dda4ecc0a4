#include "search/distributed/expr_wire.h"

#include <unordered_map>

namespace ugs::search_detail {
namespace {

using expr::ExprId;
using expr::ExprKind;
using expr::ExprPool;
using expr::Size;

struct Writer {
  const ExprPool& pool;
  std::unordered_map<ExprId, uint32_t> index;  // pool id -> position in the message
  WireWriter nodes;

  uint32_t visit(ExprId id) {
    if (auto it = index.find(id); it != index.end()) return it->second;
    std::vector<uint32_t> kids;
    for (ExprId k : pool.kids(id)) kids.push_back(visit(k));
    const ExprKind kind = pool.kind(id);
    nodes.put(kind);
    if (kind == ExprKind::Var) nodes.put(static_cast<int32_t>(pool.var_index(id)));
    if (kind == ExprKind::Sum || kind == ExprKind::Rms) {
      const Size& s = pool.size(id);
      nodes.put(static_cast<uint8_t>(s.num_primes()));
      for (int i = 0; i < s.num_primes(); ++i) {
        nodes.put(s.prime(i));
        nodes.put(static_cast<uint8_t>(s.exponent(i)));
      }
    }
    nodes.put_all(kids);
    const auto at = static_cast<uint32_t>(index.size());
    index.emplace(id, at);
    return at;
  }
};

Size read_size(WireReader& in) {
  Size size;
  const auto n = in.get<uint8_t>();
  for (int i = 0; i < n; ++i) {
    const auto p = in.get<uint32_t>();
    const auto e = in.get<uint8_t>();
    const Size prime = *Size::of(p);
    for (int j = 0; j < e; ++j) size = *Size::product(size, prime);  // fits: it did in the writer's pool
  }
  return size;
}

// Sums and products are folded from their children (already normal forms) by the pool's add and mul.
ExprId build(ExprPool& pool, ExprKind kind, int32_t var, const Size& size, const std::vector<ExprId>& kids) {
  auto fold = [&](ExprId (ExprPool::*op)(ExprId, ExprId)) {
    ExprId acc = kids.at(0);
    for (size_t i = 1; i < kids.size(); ++i) acc = (pool.*op)(acc, kids[i]);
    return acc;
  };
  switch (kind) {
    case ExprKind::Var: return pool.var(var);
    case ExprKind::Add: return fold(&ExprPool::add);
    case ExprKind::Mul: return fold(&ExprPool::mul);
    case ExprKind::Div: return pool.div(kids.at(0), kids.at(1));
    case ExprKind::Exp: return pool.exp(kids.at(0));
    case ExprKind::Sqrt: return pool.sqrt(kids.at(0));
    case ExprKind::Silu: return pool.silu(kids.at(0));
    case ExprKind::Sum: return pool.sum(size, kids.at(0));
    case ExprKind::Rms: return pool.rms(size, kids.at(0));
    case ExprKind::Huge: return pool.huge();
  }
  throw std::runtime_error("ugsearch: a message between ranks holds an unknown expression kind");
}

}  // namespace

void put_exprs(const ExprPool& pool, std::span<const ExprId> roots, WireWriter& out) {
  Writer writer{pool, {}, {}};
  std::vector<uint32_t> at;
  for (ExprId e : roots) at.push_back(writer.visit(e));
  out.put(static_cast<uint32_t>(writer.index.size()));
  out.buf() += writer.nodes.buf();
  out.put_all(at);
}

std::vector<ExprId> get_exprs(ExprPool& pool, WireReader& in) {
  const auto n = in.get<uint32_t>();
  std::vector<ExprId> node(n);
  for (uint32_t i = 0; i < n; ++i) {
    const auto kind = in.get<ExprKind>();
    const int32_t var = kind == ExprKind::Var ? in.get<int32_t>() : -1;
    const Size size = kind == ExprKind::Sum || kind == ExprKind::Rms ? read_size(in) : Size();
    std::vector<ExprId> kids;
    for (uint32_t k : in.get_all<uint32_t>()) kids.push_back(node.at(k));
    node[i] = build(pool, kind, var, size, kids);
  }
  std::vector<ExprId> roots;
  for (uint32_t k : in.get_all<uint32_t>()) roots.push_back(node.at(k));
  return roots;
}

}  // namespace ugs::search_detail
