// The expression pool: node storage, hash-consing and the memo of op applications (expr.h). Nodes
// live in fixed chunks that never move, so reads are lock-free; interning takes one shard's lock.
#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>

#include "algebra.h"
#include "pool_shard.h"

namespace ugs::expr {
namespace {

using detail::mix64;

uint64_t bloom_bit(uint64_t h) { return uint64_t{1} << (h >> 58); }
// Primes below 64 get a bit of their own (2, 3, 5, ... 61), larger ones share bits by hash.
uint64_t prime_bit(uint32_t p) { return p < 64 ? uint64_t{1} << p : bloom_bit(mix64(0, p)); }

// Structural: of the kind, attributes and the children's hashes (not their ids), so equal terms hash
// equally in every run whatever order threads interned them in.
uint64_t node_hash_head(ExprKind kind, const Size& size, int32_t var) {
  uint64_t h = mix64(0x2545f4914f6cdd1dull, static_cast<uint64_t>(kind));
  h = mix64(h, static_cast<uint64_t>(static_cast<int64_t>(var)));
  return mix64(h, size.hash());
}

}  // namespace

bool ExprFacts::within(const ExprFacts& t) const {
  return (vars & ~t.vars) == 0 && (atoms & ~t.atoms) == 0 && (primes & ~t.primes) == 0 &&
         (symbols & ~t.symbols) == 0 && max_terms <= t.max_terms && max_degree <= t.max_degree;
}

namespace {

std::atomic<uint64_t> g_next_pool_id{1};

// Each thread's latest answers of ExprPool::memoized, in front of the shared memo. A search asks the
// same few thousand questions (op, a, b, size) millions of times, and the shard lock that each would
// take bounces between cores; here a repeat costs one compare. Direct-mapped; an entry names its
// pool, so pools (one per search, several in a test) never see each other's answers. Sized for
// Mirage's spaces, whose questions overflowed 1024 entries into the shards' hash maps.
struct FrontEntry {
  uint64_t pool = 0;  // 0: empty (pool ids start at 1)
  detail::MemoKey key{};
  ExprId answer = kNoExpr;
};
constexpr size_t kFrontEntries = 4096;
thread_local std::array<FrontEntry, kFrontEntries> tl_front;

}  // namespace

ExprPool::ExprPool(ExprLimits limits)
    : limits_(limits),
      id_(g_next_pool_id.fetch_add(1, std::memory_order_relaxed)),
      dir_(new std::atomic<Node*>[kMaxChunks]),
      shards_(new detail::PoolShard[size_t{1} << detail::kPoolShardBits]) {
  for (int i = 0; i < kMaxChunks; ++i) dir_[i].store(nullptr, std::memory_order_relaxed);
  huge_ = intern(ExprKind::Huge, {});
}

ExprPool::~ExprPool() {
  for (int i = 0; i < kMaxChunks; ++i) delete[] dir_[i].load(std::memory_order_relaxed);
}

ExprPool::Node* ExprPool::slot(ExprId e) {
  if ((e >> kChunkBits) >= static_cast<uint32_t>(kMaxChunks)) throw std::length_error("expression pool full");
  std::atomic<Node*>& d = dir_[e >> kChunkBits];
  Node* chunk = d.load(std::memory_order_acquire);
  if (chunk == nullptr) {
    Node* fresh = new Node[size_t{1} << kChunkBits];
    if (d.compare_exchange_strong(chunk, fresh, std::memory_order_acq_rel)) {
      chunk = fresh;
    } else {
      delete[] fresh;  // another thread created it; `chunk` now holds theirs
    }
  }
  return &chunk[e & ((1u << kChunkBits) - 1)];
}

bool ExprPool::before(ExprId a, ExprId b) const {
  const uint64_t ha = hash(a), hb = hash(b);
  return ha != hb ? ha < hb : a < b;
}

int ExprPool::num_terms(ExprId e) const {
  switch (kind(e)) {
    case ExprKind::Add: {
      int n = 0;
      for (ExprId k : kids(e)) n += kind(k) == ExprKind::Div ? num_terms(k) : 1;
      return n;
    }
    case ExprKind::Div: {
      const ExprId num = kids(e)[0];
      return kind(num) == ExprKind::Add ? static_cast<int>(kids(num).size()) : 1;
    }
    default: return 1;
  }
}

ExprFacts ExprPool::make_facts(ExprKind k, std::span<const ExprId> ks, const Size& size, int32_t var,
                               uint64_t h) const {
  ExprFacts f;
  for (ExprId c : ks) {
    const ExprFacts& g = facts(c);
    f.vars |= g.vars;
    f.atoms |= g.atoms;
    f.primes |= g.primes;
    f.symbols |= g.symbols;
    f.max_terms = std::max(f.max_terms, g.max_terms);
    f.max_degree = std::max(f.max_degree, g.max_degree);
  }
  f.symbols |= uint16_t{1} << static_cast<int>(k);
  if (k == ExprKind::Var) f.vars |= uint64_t{1} << std::min(var, 63);
  if (k == ExprKind::Silu || k == ExprKind::Rms) f.atoms |= bloom_bit(h);
  for (int i = 0; i < size.num_primes(); ++i) f.primes |= prime_bit(size.prime(i));
  int terms = 1;
  if (k == ExprKind::Add) {
    terms = 0;
    for (ExprId c : ks) terms += kind(c) == ExprKind::Div ? num_terms(c) : 1;
  } else if (k == ExprKind::Div) {
    terms = num_terms(ks[0]);
  }
  f.max_terms = std::max<uint16_t>(f.max_terms, static_cast<uint16_t>(terms));
  const int degree = k == ExprKind::Mul ? static_cast<int>(ks.size()) : 1;
  f.max_degree = std::max<uint16_t>(f.max_degree, static_cast<uint16_t>(degree));
  f.coverage = static_cast<uint8_t>(std::popcount(f.vars) + std::popcount(f.symbols));
  return f;
}

ExprId ExprPool::intern(ExprKind k, std::span<const ExprId> ks, const Size& size, int32_t var) {
  uint64_t h = node_hash_head(k, size, var);
  for (ExprId c : ks) h = mix64(h, hash(c));
  detail::PoolShard& sh = shards_[h >> (64 - detail::kPoolShardBits)];
  std::lock_guard lock(sh.mu);
  ExprId head = kNoExpr;
  if (auto it = sh.heads.find(h); it != sh.heads.end()) {
    head = it->second;
    for (ExprId e = head; e != kNoExpr; e = node(e).next_same_hash) {
      const Node& n = node(e);
      if (n.kind == k && n.var == var && n.size == size && std::equal(ks.begin(), ks.end(), n.kids.begin(), n.kids.end()))
        return e;
    }
  }
  const ExprId e = count_.fetch_add(1, std::memory_order_acq_rel);
  Node& n = *slot(e);
  n.kind = k;
  n.var = var;
  n.size = size;
  n.hash = h;
  n.kids.assign(ks.begin(), ks.end());
  n.facts = make_facts(k, ks, size, var, h);
  n.next_same_hash = head;
  sh.heads[h] = e;
  return e;
}

bool ExprPool::memo_find(uint64_t kh, uint32_t op, ExprId a, ExprId b, const Size& k, ExprId* out) const {
  detail::PoolShard& sh = shards_[kh >> (64 - detail::kPoolShardBits)];
  std::lock_guard lock(sh.mu);
  auto it = sh.memo.find(detail::MemoKey{kh, op, a, b, k});
  if (it == sh.memo.end()) return false;
  *out = it->second;
  return true;
}

void ExprPool::memo_put(uint64_t kh, uint32_t op, ExprId a, ExprId b, const Size& k, ExprId r) {
  detail::PoolShard& sh = shards_[kh >> (64 - detail::kPoolShardBits)];
  std::lock_guard lock(sh.mu);
  sh.memo.emplace(detail::MemoKey{kh, op, a, b, k}, r);
}

// The result is computed outside every lock (it interns through other shards); two threads that miss
// at once compute the same node, hash-consing makes their answers equal.
ExprId ExprPool::memoized(uint32_t op, ExprId a, ExprId b, const Size& k) {
  const uint64_t kh = mix64(mix64(mix64(mix64(0x7a1f, op), a), b), k.hash());
  const detail::MemoKey key{kh, op, a, b, k};
  FrontEntry& front = tl_front[kh % kFrontEntries];
  if (front.pool == id_ && front.key == key) return front.answer;
  ExprId answer;
  if (!memo_find(kh, op, a, b, k, &answer)) {
    answer = detail::Algebra(*this).apply(op, a, b, k);
    memo_put(kh, op, a, b, k, answer);
  }
  front = {id_, key, answer};
  return answer;
}

ExprId ExprPool::var(int input) {
  if (input < 0) throw std::invalid_argument("expression variable index must be >= 0");
  return intern(ExprKind::Var, {}, Size(), input);
}

ExprId ExprPool::add(ExprId a, ExprId b) {
  if (before(b, a)) std::swap(a, b);
  return memoized(detail::kOpAdd, a, b, Size());
}

ExprId ExprPool::mul(ExprId a, ExprId b) {
  if (before(b, a)) std::swap(a, b);
  return memoized(detail::kOpMul, a, b, Size());
}

ExprId ExprPool::div(ExprId a, ExprId b) { return memoized(detail::kOpDiv, a, b, Size()); }

ExprId ExprPool::sum(const Size& k, ExprId a) {
  if (k.is_one()) return a;
  return memoized(detail::kOpSum, a, kNoExpr, k);
}

ExprId ExprPool::sum(int64_t k, ExprId a) {
  if (k < 1) throw std::invalid_argument("sum size must be >= 1");
  const std::optional<Size> s = Size::of(k);
  return s ? sum(*s, a) : huge_;
}

ExprId ExprPool::rms(const Size& k, ExprId a) { return memoized(detail::kOpRms, a, kNoExpr, k); }

ExprId ExprPool::rms(int64_t k, ExprId a) {
  if (k < 1) throw std::invalid_argument("rms size must be >= 1");
  const std::optional<Size> s = Size::of(k);
  return s ? rms(*s, a) : huge_;
}

ExprId ExprPool::exp(ExprId a) { return memoized(detail::kOpExp, a, kNoExpr, Size()); }
ExprId ExprPool::sqrt(ExprId a) { return memoized(detail::kOpSqrt, a, kNoExpr, Size()); }
ExprId ExprPool::silu(ExprId a) { return memoized(detail::kOpSilu, a, kNoExpr, Size()); }
ExprId ExprPool::huge() { return huge_; }

}  // namespace ugs::expr
