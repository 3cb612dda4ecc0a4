#pragma once
// The shape check of block ops by operand pair. Whether an op on tiles x and y checks out, and the
// tile it gives, depend on the two tiles' shapes and stages alone, and a search meets a few hundred
// distinct tiles however many states it visits. So each thread numbers the tiles it meets (a tile's
// class) and keeps, per ordered pair of classes, the ops that check out on them; a memo part
// missing from the shared memo is put together from its pairs' lists rather than by checking every
// op, operand pair and attribute anew (in a real space most parts are such, and checking them anew was
// a large share of a search's time). Internal to src/search.
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "search/generator/shaped_ops.h"

namespace ugs::search_detail {

// A tile as the shape check sees it, in three words: its rank and stage, then its dims (unused 0).
struct TileKey {
  std::array<uint64_t, 3> words;  // unset until key_of: a lookup's keys are never zeroed first
  bool operator==(const TileKey& o) const {
    return words[0] == o.words[0] && words[1] == o.words[1] && words[2] == o.words[2];
  }
};

static_assert(kMaxRank == 4, "TileKey packs four dims");

// Inline: the memo keys every tile of every block graph it is asked for.
inline TileKey key_of(const Tile& t) {
  std::array<uint64_t, kMaxRank> d{};
  for (int i = 0; i < t.shape.rank; ++i) d[i] = static_cast<uint32_t>(t.shape.d[i]);
  const uint64_t stage = static_cast<uint64_t>(t.shape.rank) | (t.post ? 0x100u : 0u);
  return {{stage | d[0] << 32, d[1] | d[2] << 32, d[3]}};
}

// Folds a word through one 64×64→128-bit multiply: the hash tables here compare keys whole, so a
// hash need only spread them.
inline uint64_t fold_hash(uint64_t v) {
  const unsigned __int128 r = static_cast<unsigned __int128>(v) * 0xA0761D6478BD642Full;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

// The hash of a prefix one tile longer (`hash` covers the prefix, 0 for none): the tile's words are
// mixed apart from the chain, which does not wait for them, then folded into it.
inline uint64_t extend_hash(uint64_t hash, const TileKey& tile) {
  const uint64_t mixed = tile.words[0] ^ std::rotl(tile.words[1] * 0x9E3779B97F4A7C15ull, 23) ^
                         std::rotl(tile.words[2] * 0xC2B2AE3D27D4EB4Full, 47);
  return fold_hash(hash ^ mixed);
}

// One thread's tile classes and pair lists, for one memo's config. Not shared: reset with the memo
// it serves, so it needs no lock.
class ShapedPairs {
 public:
  // This thread's lists for `memo` under `cfg` (emptied when the thread last served another memo).
  static ShapedPairs& of(uint64_t memo, const SearchConfig& cfg);

  // The class of a tile, given with its key_of, numbered as met.
  uint32_t class_of(const TileKey& key, const Tile& tile);

  // Appends to `out` what compute_part (shaped_ops.cpp) gives for the last of `classes`: the ops
  // whose last operand is that tile, by kind in the config's order, then operands, then attributes.
  void append_part(std::span<const uint32_t> classes, ShapedOps& out);

  // Changes whenever the classes are numbered anew (a thread serving another memo): what a cache
  // keeps by class must carry it.
  uint64_t epoch() const { return epoch_; }
  size_t classes() const { return class_tiles_.size(); }
  size_t pairs() const { return pair_count_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;  // the second class of a unary op's pair
  // The index of the pair (cx, cy)'s lists, computed when first asked: for each kind of the config,
  // the ops on operands of these classes (unary kinds when cy is kNone, binary ones otherwise).
  uint32_t pair(uint32_t cx, uint32_t cy);
  void compute_pair(uint32_t cx, uint32_t cy);
  void grow_pairs();
  void append(uint32_t pair, int kind, int x, int y, ShapedOps& out) const;

  const SearchConfig* cfg_ = nullptr;
  uint64_t memo_ = 0, epoch_ = 0;
  int kinds_ = 0;
  // Classes: open addressing (keys, class + 1; 0 is empty), and each class's tile.
  std::vector<TileKey> class_keys_;
  std::vector<uint32_t> class_slots_;
  std::vector<Tile> class_tiles_;
  // Pairs: open addressing on (cx, cy) + 1, giving the pair's index; per pair, kinds_ + 1 offsets
  // into ops_ and kinds_ rejected counts.
  std::vector<uint64_t> pair_keys_;
  std::vector<uint32_t> pair_slots_;
  size_t pair_count_ = 0;
  std::vector<uint32_t> offsets_, rejected_;
  std::vector<ShapedOp> ops_;  // operands 0 and 1 (kNoOperand for a unary op's second)
  BlockGraph scratch_;         // a pair's two tiles, for the shape check
};

}  // namespace ugs::search_detail
