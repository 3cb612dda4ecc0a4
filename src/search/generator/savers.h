#pragma once
// The tiles a closing saves, for the generator's closings and the closing lookahead. Internal to
// src/search.
#include <bit>
#include <cstdint>

#include "ugs/ir/graph.h"

namespace ugs::search_detail {

// Tiles no block op reads, as a bit set: what a closing saves. Empty if one of them cannot be saved (a
// loader or a tensor from inside the loop would be left unused). Bits rather than a list: this runs for
// every open state, and a list's array was zeroed on every call.
inline uint32_t savable_tiles(const BlockGraph& block) {
  static_assert(kMaxTiles <= 32);
  uint32_t used = 0;
  for (const Op& op : block.ops)
    for (int i = 0; i < arity(op.kind); ++i) used |= 1u << op.in[i];
  uint32_t outs = 0;
  for (int t = 0; t < block.tiles.size(); ++t) {
    if (used >> t & 1) continue;
    if (!block.tiles[t].post) return 0;
    outs |= 1u << t;
  }
  return outs;
}

// Calls f(t) for each tile t of a savable_tiles set, in increasing order (the savers' order).
template <class F>
void for_each_tile(uint32_t set, F f) {
  for (; set != 0; set &= set - 1) f(std::countr_zero(set));
}

}  // namespace ugs::search_detail
