#pragma once
// The expressions of a block graph's candidate ops, kept part by part (a part: the ops whose last
// operand is one tile, shaped_ops.h) for the next states that share the tiles and expressions up to
// that part. An op's expression reads only the op, its operands' expressions and shapes and the loop
// range, so equal tiles and expressions up to a part give its ops equal answers. The states a search
// expands one after another share long prefixes: bfs keeps a level's states in the order their
// parents were expanded (siblings, then cousins, ...), dfs expands a child right after its parent.
// So each thread keeps one entry per part, each stamped and naming the stamp of the entry below it:
// an entry is valid while its own tile and expression match and the one below is the one it was
// made on, one comparison per part. Internal to src/search.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "ugs/expr/expr.h"
#include "ugs/ir/graph.h"

namespace ugs::search_detail {

class PrefixQueries {
 public:
  // This thread's entries, made ready for `block` with tile expressions `exprs` and `sizes[k]` ops in
  // part k, under generator `owner` (its shaped-ops memo's id: one op list per memo): each part whose
  // prefix is the one held keeps its answers, the others are emptied.
  static PrefixQueries& of(uint64_t owner, const BlockGraph& block, std::span<const expr::ExprId> exprs,
                           std::span<const uint32_t> sizes) {
    thread_local PrefixQueries entries;
    entries.prepare(owner, block, exprs, sizes);
    return entries;
  }

  // The expression of op `index` of part `part`, computed by `compute` if not yet asked.
  template <class Compute>
  expr::ExprId get(int part, size_t index, Compute compute) {
    Part& entry = parts_[part];
    expr::ExprId& known = entry.queries[index];
    if (known == expr::kNoExpr) {
      known = compute();
      entry.asked.push_back(static_cast<uint32_t>(index));
    }
    return known;
  }

 private:
  struct Part {
    uint64_t stamp = 0, below = 0;  // this entry's stamp, and the stamp of the one it was made on
    Tile tile;
    expr::ExprId expr = expr::kNoExpr;
    std::vector<expr::ExprId> queries;  // by op of the part; kNoExpr: not asked yet
    std::vector<uint32_t> asked;        // the ops answered, so that emptying the entry clears only them
  };

  void prepare(uint64_t owner, const BlockGraph& block, std::span<const expr::ExprId> exprs,
               std::span<const uint32_t> sizes) {
    if (owner != owner_ || block.loop != loop_) {  // every entry's chain starts anew
      owner_ = owner;
      loop_ = block.loop;
      base_ = ++stamps_;
    }
    for (size_t k = 0; k < sizes.size(); ++k) {
      Part& part = parts_[k];
      const uint64_t below = k == 0 ? base_ : parts_[k - 1].stamp;
      const Tile& tile = block.tiles[static_cast<int>(k)];
      if (part.below == below && part.expr == exprs[k] && part.tile.post == tile.post && part.tile.shape == tile.shape &&
          part.queries.size() == sizes[k])
        continue;
      part.stamp = ++stamps_;
      part.below = below;
      part.tile = tile;
      part.expr = exprs[k];
      for (uint32_t op : part.asked) part.queries[op] = expr::kNoExpr;  // a part is large, its answers few
      part.asked.clear();
      part.queries.resize(sizes[k], expr::kNoExpr);
    }
  }

  uint64_t owner_ = 0;  // 0: no generator's (memo ids start at 1)
  int32_t loop_ = 0;
  uint64_t base_ = 0, stamps_ = 0;
  std::array<Part, kMaxTiles> parts_;
};

}  // namespace ugs::search_detail
