// The outputs' atoms (output_symbols.h): a block graph no kernel op can follow whose tiles hold an
// output's silu or rms atom nowhere, and none of whose tiles lies within the atom's argument, never
// completes. Walked whole (about half a minute): a space where that happens and completions exist.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "output_walker.h"
#include "search_util.h"
#include "ugs/io/program.h"

namespace ugs::search_detail {
namespace {

using test::mirage_config;

// qknorm_gqa_small's Mirage space (two block graphs, so kernel ops and a first block graph come
// before the last), cut to one grid, two loop ranges and the block ops its answers use: many last
// block graphs open on tensors that hold Q or V only under a sum or the scores, from which no op
// makes rms(16, x0) or rms(16, x2).
TEST(OutputSymbols, NoStateWithoutAnAtomsArgumentCompletes) {
  const Program p = load_program("qknorm_gqa_small");
  SearchConfig cfg = mirage_config(p);
  cfg.grid_rule = GridRule::Listed;
  cfg.grids = {{2, 4, 1}};
  cfg.loop_ranges = {1, 4};
  std::erase_if(cfg.block_ops, [](OpKind k) {
    return k == OpKind::Square || k == OpKind::Sqrt || k == OpKind::Silu || k == OpKind::Add || k == OpKind::Mul;
  });
  const Walk seen = walk_space(p, cfg);
  EXPECT_GT(seen.dead_atoms, 0);
  EXPECT_GT(seen.completing, 0);
}

}  // namespace
}  // namespace ugs::search_detail
