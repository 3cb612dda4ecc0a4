#include "search/generator/output_shapes.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <unordered_map>

#include "search/generator/enumerate.h"
#include "ugs/util/hash.h"

namespace ugs::search_detail {

namespace {

// Bounds of one check's closure. Mirage's op lists make closures of a few dozen shapes in under two
// thousand shape inferences; the open space's longer lists (folds to every output dim) take tens of
// thousands, computed at every opening, and nearly always reach an output's shape.
constexpr size_t kMaxShapes = 256;
constexpr int64_t kMaxInferences = 4096;

std::atomic<uint64_t> next_id{1};

// A memo key: the checker, the grid, the ops left and the loaded shapes, packed.
struct Key {
  std::array<int32_t, 6 + kMaxBlockInputs * (1 + kMaxRank)> v{};
  friend bool operator==(const Key&, const Key&) = default;
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    uint64_t h = 0;
    for (int32_t x : k.v) h = splitmix64(h ^ static_cast<uint32_t>(x));
    return h;
  }
};

}  // namespace

OutputShapes::OutputShapes(const KernelGraph& program, const SearchConfig& cfg)
    : cfg_(cfg), id_(next_id.fetch_add(1, std::memory_order_relaxed)) {
  for (int32_t t : program.outputs) outputs_.push_back(program.shape(t));
}

// Shapes within reach of `loaded` in `ops` block ops, each passed to `found` once as it is made, the
// loaded ones first, until `found` accepts one (Found), the closure is complete (Complete), or it
// passes kMaxShapes shapes or `max_inferences` shape inferences (Cut).
template <class Found>
OutputShapes::ClosureEnd OutputShapes::search_closure(std::span<const Shape> loaded, int ops,
                                                      int64_t max_inferences, std::vector<Shape>& shapes,
                                                      Found found) const {
  shapes.clear();
  int64_t inferences = 0;
  // The shapes made so far, by hash: most inferences give a shape already made, and a closure holds
  // up to kMaxShapes of them. Slots hold 1 + an index into `shapes`, valid while stamped this call.
  constexpr size_t kSlots = 1024;
  static_assert((kSlots & (kSlots - 1)) == 0 && kSlots >= 2 * (kMaxShapes + 1));
  thread_local std::array<uint16_t, kSlots> slot_index;
  thread_local std::array<uint32_t, kSlots> slot_stamp{};
  thread_local uint32_t stamp = 0;
  if (++stamp == 0) {  // wrapped: every slot's stamp could look current
    slot_stamp.fill(0);
    stamp = 1;
  }
  // Adds `s` if new; says how the closure ends if nothing follows (Complete: go on).
  const auto add = [&](const Shape& s) -> ClosureEnd {
    uint64_t h = static_cast<uint64_t>(s.rank);
    for (int i = 0; i < s.rank; ++i) h = splitmix64(h ^ static_cast<uint32_t>(s.d[i]));
    size_t at = h & (kSlots - 1);
    for (; slot_stamp[at] == stamp; at = (at + 1) & (kSlots - 1))
      if (shapes[slot_index[at]] == s) return ClosureEnd::Complete;
    slot_stamp[at] = stamp;
    slot_index[at] = static_cast<uint16_t>(shapes.size());
    shapes.push_back(s);
    if (found(s)) return ClosureEnd::Found;
    return shapes.size() > kMaxShapes ? ClosureEnd::Cut : ClosureEnd::Complete;
  };
  for (const Shape& s : loaded)
    if (const ClosureEnd end = add(s); end != ClosureEnd::Complete) return end;
  // Round r adds the shapes of one op on shapes of rounds < r, at least one of round r - 1.
  size_t tried = 0;  // shapes [0, tried) were combined with one another in earlier rounds
  for (int round = 0; round < ops && tried < shapes.size(); ++round) {
    const size_t n = shapes.size();
    for (OpKind kind : cfg_.block_ops) {
      const int arity_of = arity(kind);
      for (size_t i = arity_of == 1 ? tried : 0; i < n; ++i)
        // A pair of shapes both combined in an earlier round is skipped (not looped over: closures
        // run to hundreds of shapes, so the pairs skipped outnumber the inferences).
        for (size_t j = arity_of == 1 ? 0 : (i < tried ? tried : 0); j < (arity_of == 2 ? n : 1); ++j) {
          if (inferences > max_inferences) return ClosureEnd::Cut;
          const std::array<Shape, 2> operands{shapes[i], shapes[j]};
          ClosureEnd end = ClosureEnd::Complete;
          for_each_variant(kind, operands[0], cfg_, [&](const Op& op) {
            ++inferences;
            Shape result;
            if (end == ClosureEnd::Complete &&
                infer_shape(op, Level::Block, std::span(operands.data(), arity_of), &result) == Verdict::Ok)
              end = add(result);
          });
          if (end != ClosureEnd::Complete) return end;
        }
    }
    tried = n;
  }
  return ClosureEnd::Complete;
}

std::vector<Shape> OutputShapes::reachable(std::span<const Shape> loaded, int ops) const {
  std::vector<Shape> shapes;
  search_closure(loaded, ops, INT64_MAX, shapes, [](const Shape&) { return false; });
  return shapes;
}

// The omaps a closing tries (Generator::close_steps): each grid axis of size > 1 takes a distinct dim.
// Turned around: a tile saved under an omap has an output's shape exactly when the output's dims that
// the omap names divide by the grid and the tile is the output divided so.
void OutputShapes::tiles_saving_outputs(const Dim3& grid, std::vector<Shape>& out) const {
  out.clear();
  for (const Shape& output : outputs_) {
    FixedVec<int, 3> radix;
    for (int a = 0; a < 3; ++a)
      if (grid[a] > 1) radix.push_back(output.rank);
    Odometer<3> dims(radix);
    if (dims.empty()) continue;
    do {
      Axes omap{kNoDim, kNoDim, kNoDim};
      Shape tile = output;
      uint32_t used = 0;
      bool fits = true;
      for (int a = 0, i = 0; a < 3; ++a) {
        if (grid[a] == 1) continue;
        const int d = dims.digits()[i++];
        fits = fits && !(used >> d & 1) && tile.d[d] % grid[a] == 0;
        used |= 1u << d;
        omap[a] = static_cast<int8_t>(d);
        if (fits) tile.d[d] /= grid[a];
      }
      if (fits && cfg_.tries_omap(omap) && std::find(out.begin(), out.end(), tile) == out.end()) out.push_back(tile);
    } while (dims.next());
  }
}

bool OutputShapes::saves_output(const Dim3& grid, const Shape& tile) const {
  std::vector<Shape> tiles;
  tiles_saving_outputs(grid, tiles);
  return std::find(tiles.begin(), tiles.end(), tile) != tiles.end();
}

bool OutputShapes::may_save_output(const Dim3& grid, std::span<const Shape> loaded, int ops) const {
  // A memo key: `shapes` (one loaded shape alone when `alone`) on `grid` with `ops` ops.
  const auto key_of = [&](std::span<const Shape> shapes, bool alone) {
    Key key;
    size_t at = 0;
    key.v[at++] = static_cast<int32_t>(id_);
    key.v[at++] = static_cast<int32_t>(id_ >> 32);
    for (int32_t g : grid) key.v[at++] = g;
    key.v[at++] = alone ? -1 - ops : ops;
    for (const Shape& s : shapes) {
      key.v[at++] = s.rank;
      for (int32_t d : s.d) key.v[at++] = d;
    }
    return key;
  };
  // Per shape alone: whether its closure found an output's shape (a cut closure tells nothing).
  // Per list: the answer.
  thread_local std::unordered_map<Key, bool, KeyHash> memo;
  if (memo.size() >= (size_t{1} << 16)) memo.clear();
  // The tiles that save an output, listed again only when the checker or the grid changes.
  thread_local std::vector<Shape> shapes, targets;
  thread_local uint64_t targets_id = 0;
  thread_local Dim3 targets_grid{};
  if (targets_id != id_ || targets_grid != grid) {
    tiles_saving_outputs(grid, targets);
    targets_id = id_;
    targets_grid = grid;
  }
  const auto is_target = [&](const Shape& s) { return std::find(targets.begin(), targets.end(), s) != targets.end(); };
  for (size_t i = 0; i < loaded.size(); ++i) {
    const std::span<const Shape> alone = loaded.subspan(i, 1);
    const Key key = key_of(alone, true);
    auto it = memo.find(key);
    if (it == memo.end())
      it = memo.emplace(key, search_closure(alone, ops, kMaxInferences, shapes, is_target) == ClosureEnd::Found).first;
    if (it->second) return true;
  }
  const Key key = key_of(loaded, false);
  if (const auto it = memo.find(key); it != memo.end()) return it->second;
  // Past kMaxInferences the opening passes: such closures come of long op lists, whose shapes
  // nearly always reach an output's.
  const bool may = search_closure(loaded, ops, kMaxInferences, shapes, is_target) != ClosureEnd::Complete;
  memo.emplace(key, may);
  return may;
}

}  // namespace ugs::search_detail
