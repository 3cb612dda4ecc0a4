#pragma once
// What the openings of a block graph are made of, remembered (block_openings.cpp). An opening is a
// choice of inputs, a launch (grid, loop range) and a map per loader, and which of them pass the
// generator's checks depends on little:
// - the launch table, the maps, the distinct-work rule, shared memory and the output-shape check
//   (output_shapes.h) see only the inputs' shapes: the openings passing them are an `OpeningTable`,
//   made once per inputs' shapes, whatever kernel graph they belong to, with its rejections counted
//   as each use of it would count them;
// - of the last block graph's openings, those the closing lookahead keeps (closing_memo.h) depend
//   on the inputs' tensors, shapes and expressions and on the savers allowed: `KeptOpenings`, made
//   once per such key and copied to every kernel graph that opens the same inputs.
// The lookahead sees of a loader only its tile's shape, so the table numbers the combinations of
// tile shapes of each launch (`combo`): a search asks the lookahead once per combination.
// Internal to src/search.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "search/generator/shared_memo.h"
#include "ugs/ir/graph.h"
#include "ugs/search/generator/state.h"

namespace ugs::search_detail {

// The inputs' shapes, the output-shape check's ops (0 when it is off).
struct TableKey {
  static constexpr int kWords = 2 + kMaxBlockInputs * (1 + kMaxRank);
  std::array<int32_t, kWords> words{};
  friend bool operator==(const TableKey&, const TableKey&) = default;
};

struct TableOpening {
  uint32_t launch = 0;  // into OpeningTable::launches
  uint32_t combo = 0;   // the launch and loaders' tile shapes, numbered within the table
  std::array<Axes, kMaxBlockInputs> imap{};
  std::array<int8_t, kMaxBlockInputs> fmap{};
};

struct OpeningTable {
  std::vector<Launch> launches;
  std::vector<TableOpening> openings;
  uint32_t combos = 0;
  PruneCounts pruned;
};

// The savers, then per input its tensor, expression and shape.
struct KeptKey {
  static constexpr int kWords = 1 + kMaxBlockInputs * (3 + kMaxRank);
  std::array<int64_t, kWords> words{};
  friend bool operator==(const KeptKey&, const KeptKey&) = default;
};

struct KeptOpenings {
  std::vector<Step> steps;
  PruneCounts pruned;      // the rejections on the way to them
  uint64_t lookahead = 0;  // the openings the closing lookahead was asked about
};

inline TableKey table_key(const KernelGraph& kernel, std::span<const int32_t> ins, int output_shape_ops) {
  TableKey key;
  int at = 0;
  key.words[at++] = output_shape_ops;
  key.words[at++] = static_cast<int32_t>(ins.size());
  for (int32_t t : ins) {
    const Shape& shape = kernel.shape(t);
    key.words[at++] = shape.rank;
    for (int d = 0; d < shape.rank; ++d) key.words[at++] = shape.d[d];
  }
  return key;
}

inline KeptKey kept_key(const State& state, std::span<const int32_t> ins, int64_t savers) {
  KeptKey key;
  int at = 0;
  key.words[at++] = savers;
  for (int32_t t : ins) {
    const Shape& shape = state.kernel.shape(t);
    key.words[at++] = t;
    key.words[at++] = state.kexpr[t];
    key.words[at++] = shape.rank;
    for (int d = 0; d < shape.rank; ++d) key.words[at++] = shape.d[d];
  }
  return key;
}

// Bounded by openings kept: a table's opening is 24 bytes, a kept step about a hundred.
using OpeningTables = SharedMemo<TableKey, OpeningTable>;
using KeptOpeningsMemo = SharedMemo<KeptKey, KeptOpenings>;
inline constexpr uint64_t kMaxTableOpenings = uint64_t{1} << 23;
inline constexpr uint64_t kMaxKeptSteps = uint64_t{1} << 22;

}  // namespace ugs::search_detail
