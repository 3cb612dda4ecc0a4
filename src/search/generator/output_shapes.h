#pragma once
// A dead-end check at the opening of a block graph that must make the program's outputs: when no
// kernel op can follow the block graph, each tile it saves becomes one of the μGraph's outputs, so
// some tile it can compute must, saved under one of the space's omaps, have an output's shape. Tile
// shapes follow from the loaded tiles' shapes alone (block ops' shapes depend on their operands'
// shapes and attributes), so the shapes within reach of the loaded ones are a small closure; an
// opening from which no output shape is within reach is never expanded (counted as `pruned.reach`),
// which changes no result. In Mirage's attention spaces the last block graph's openings are most of
// the states, and most of them cannot make the output's shape.
#include <cstdint>
#include <span>
#include <vector>

#include "ugs/ir/graph.h"
#include "ugs/search/generator/config.h"

namespace ugs::search_detail {

class OutputShapes {
 public:
  OutputShapes(const KernelGraph& program, const SearchConfig& cfg);

  // Whether a block graph on `grid` whose loaded tiles have the shapes `loaded`, with `ops` block
  // ops left after its loaders, may save a tile whose kernel tensor has one of the outputs' shapes.
  // The closure stops at the first such shape, and past a bound of work the answer is yes. A shape
  // within reach of one loaded shape alone is within reach of them all, so the closure of each
  // loaded shape alone is searched first: those repeat far more than whole lists of shapes, and
  // one of them nearly always makes an output's shape. Remembered per thread, each list and each
  // shape alone; the answer is the whole closure's.
  bool may_save_output(const Dim3& grid, std::span<const Shape> loaded, int ops) const;

  // The shapes of every tile `ops` block ops of the space can compute from tiles of the shapes
  // `loaded` (those included): an over-approximation, since it lets any shape be reused. Exposed
  // for the tests.
  std::vector<Shape> reachable(std::span<const Shape> loaded, int ops) const;

  // Whether a tile of shape `tile`, saved on `grid` under an omap the closing may take, has one of
  // the outputs' shapes.
  bool saves_output(const Dim3& grid, const Shape& tile) const;
  // The tile shapes saves_output accepts on `grid` (each once), into `out`: what may_save_output
  // looks for, listed once per grid a thread checks.
  void tiles_saving_outputs(const Dim3& grid, std::vector<Shape>& out) const;

 private:
  enum class ClosureEnd { Found, Complete, Cut };
  template <class Found>
  ClosureEnd search_closure(std::span<const Shape> loaded, int ops, int64_t max_inferences,
                            std::vector<Shape>& shapes, Found found) const;

  const SearchConfig& cfg_;
  std::vector<Shape> outputs_;
  uint64_t id_;  // names this checker among all a process makes: the per-thread memo keys on it
};

}  // namespace ugs::search_detail
