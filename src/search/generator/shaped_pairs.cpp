#include "search/generator/shaped_pairs.h"

#include <bit>

#include "search/generator/enumerate.h"

namespace ugs::search_detail {

namespace {

uint64_t hash_of(const TileKey& key) { return extend_hash(0, key); }

constexpr uint64_t kEmptyPair = UINT64_MAX;

thread_local ShapedPairs tl_pairs;
thread_local uint64_t tl_epochs = 0;

}  // namespace

ShapedPairs& ShapedPairs::of(uint64_t memo, const SearchConfig& cfg) {
  ShapedPairs& pairs = tl_pairs;
  if (pairs.memo_ != memo) {
    pairs = ShapedPairs();
    pairs.memo_ = memo;
    pairs.epoch_ = ++tl_epochs;
    pairs.cfg_ = &cfg;
    pairs.kinds_ = static_cast<int>(cfg.block_ops.size());
    pairs.class_slots_.assign(256, 0);
    pairs.pair_keys_.assign(1024, kEmptyPair);
    pairs.pair_slots_.assign(1024, 0);
    pairs.offsets_.push_back(0);
  }
  return pairs;
}

uint32_t ShapedPairs::class_of(const TileKey& key, const Tile& tile) {
  size_t mask = class_slots_.size() - 1;
  for (size_t at = hash_of(key) & mask;; at = (at + 1) & mask) {
    const uint32_t slot = class_slots_[at];
    if (slot != 0 && class_keys_[slot - 1] == key) return slot - 1;
    if (slot != 0) continue;
    const auto made = static_cast<uint32_t>(class_tiles_.size());
    class_keys_.push_back(key);
    class_tiles_.push_back(tile);
    class_slots_[at] = made + 1;
    if (2 * class_tiles_.size() > class_slots_.size()) {  // at most half full: rehash into twice the slots
      class_slots_.assign(2 * class_slots_.size(), 0);
      mask = class_slots_.size() - 1;
      for (uint32_t c = 0; c < class_keys_.size(); ++c) {
        size_t to = hash_of(class_keys_[c]) & mask;
        while (class_slots_[to] != 0) to = (to + 1) & mask;
        class_slots_[to] = c + 1;
      }
    }
    return made;
  }
}

uint32_t ShapedPairs::pair(uint32_t cx, uint32_t cy) {
  const uint64_t key = uint64_t{cx} << 32 | cy;
  const size_t mask = pair_keys_.size() - 1;
  for (size_t at = fold_hash(key) & mask;; at = (at + 1) & mask) {
    if (pair_keys_[at] == key) return pair_slots_[at];
    if (pair_keys_[at] != kEmptyPair) continue;
    const auto made = static_cast<uint32_t>(pair_count_);
    compute_pair(cx, cy);
    pair_keys_[at] = key;
    pair_slots_[at] = made;
    if (2 * pair_count_ > pair_keys_.size()) grow_pairs();
    return made;
  }
}

void ShapedPairs::grow_pairs() {
  std::vector<uint64_t> keys(2 * pair_keys_.size(), kEmptyPair);
  std::vector<uint32_t> slots(keys.size(), 0);
  const size_t mask = keys.size() - 1;
  for (size_t i = 0; i < pair_keys_.size(); ++i) {
    if (pair_keys_[i] == kEmptyPair) continue;
    size_t to = fold_hash(pair_keys_[i]) & mask;
    while (keys[to] != kEmptyPair) to = (to + 1) & mask;
    keys[to] = pair_keys_[i];
    slots[to] = pair_slots_[i];
  }
  pair_keys_ = std::move(keys);
  pair_slots_ = std::move(slots);
}

// As compute_part does for one operand pair, on a block graph of just the two tiles.
void ShapedPairs::compute_pair(uint32_t cx, uint32_t cy) {
  scratch_.tiles.clear();
  scratch_.tiles.push_back(class_tiles_[cx]);
  const bool unary = cy == kNone;
  if (!unary) scratch_.tiles.push_back(class_tiles_[cy]);
  const Shape& first = class_tiles_[cx].shape;
  for (OpKind kind : cfg_->block_ops) {
    uint32_t rejected = 0;
    if ((arity(kind) == 1) == unary)
      for_each_variant(kind, first, *cfg_, [&](Op op) {
        op.in = {0, unary ? -1 : 1};
        Tile result;
        if (scratch_.result_of(op, &result) != Verdict::Ok || is_idle_sum(kind, first, result.shape))
          ++rejected;
        else
          ops_.push_back(ShapedOp::of(op, result));
      });
    offsets_.push_back(static_cast<uint32_t>(ops_.size()));
    rejected_.push_back(rejected);
  }
  ++pair_count_;
}

void ShapedPairs::append(uint32_t pair, int kind, int x, int y, ShapedOps& out) const {
  const size_t at = pair * static_cast<size_t>(kinds_) + kind;
  out.rejected += rejected_[at];
  for (uint32_t i = offsets_[at]; i < offsets_[at + 1]; ++i) {
    ShapedOp& op = out.ops.emplace_back(ops_[i]);
    op.in = {static_cast<uint8_t>(x), y < 0 ? ShapedOp::kNoOperand : static_cast<uint8_t>(y)};
  }
}

void ShapedPairs::append_part(std::span<const uint32_t> cls, ShapedOps& out) {
  const int k = static_cast<int>(cls.size()) - 1;
  // The pairs part k reads: (k) alone, (a, k) for a < k, and (k, b) for b <= k.
  const uint32_t alone = pair(cls[k], kNone);
  std::array<uint32_t, kMaxTiles> before, after;
  for (int a = 0; a < k; ++a) before[a] = pair(cls[a], cls[k]);
  for (int b = 0; b <= k; ++b) after[b] = pair(cls[k], cls[b]);
  for (int kind = 0; kind < kinds_; ++kind) {  // in compute_part's order (for_each_operands_ending_at)
    const OpKind op = cfg_->block_ops[kind];
    if (arity(op) == 1) {
      append(alone, kind, k, -1, out);
      continue;
    }
    for (int a = 0; a < k; ++a) append(before[a], kind, a, k, out);
    for (int b = is_commutative(op) ? k : 0; b <= k; ++b) append(after[b], kind, k, b, out);
  }
}

}  // namespace ugs::search_detail
