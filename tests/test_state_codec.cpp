// The compact state encoding of the bfs frontier (src/search/state_codec.h): every state of a small
// search survives encode → decode → encode byte for byte.
#include <gtest/gtest.h>

#include "search/bfs/state_codec.h"
#include "test_util.h"
#include "ugs/ir/canonical.h"
#include "ugs/search/generator/generator.h"

namespace ugs {
namespace {

// With its graph (hash), expressions and open block graph intact; a symbolic opening with its launches
// and the launches alive after each tile.
void round_trip_every_state(const nlohmann::json& overrides, bool symbolic) {
  const Program p = load_program("rmsnorm_linear_small");
  SearchConfig cfg;
  apply_config_json(cfg, p.search_preset, p.name);
  apply_config_json(cfg, overrides, "test");
  cfg.symbolic = symbolic;
  resolve(cfg, p.graph);
  expr::ExprPool pool;
  const Generator gen(p.graph, cfg, pool);
  std::vector<State> stack{gen.root()};
  size_t seen = 0, open = 0, in_family = 0;
  while (!stack.empty()) {
    const State s = stack.back();
    stack.pop_back();
    search_detail::Bytes a, b;
    search_detail::encode(s, a);
    State back;
    ASSERT_EQ(search_detail::decode(a.data(), back), a.data() + a.size());
    search_detail::encode(back, b);
    ASSERT_EQ(a, b);
    EXPECT_EQ(structural_hash(back.kernel), structural_hash(s.kernel));
    EXPECT_TRUE(back.kexpr == s.kexpr && back.bexpr == s.bexpr && back.open == s.open);
    if (s.open) {
      EXPECT_EQ(structural_hash(back.block), structural_hash(s.block));
    }
    EXPECT_TRUE(back.family.launches == s.family.launches && back.family.alive == s.family.alive);
    EXPECT_LT(a.size(), sizeof(State) / 8);  // compact
    ++seen;
    open += s.open;
    in_family += s.family.symbolic();
    std::vector<Step> steps;
    PruneCounts pruned;
    gen.candidates(s, steps, pruned);
    for (const Step& st : steps) stack.push_back(gen.apply(s, st));
  }
  EXPECT_GT(seen, 1000u);
  EXPECT_GT(open, 100u);
  EXPECT_EQ(in_family > 0, symbolic);
}

TEST(StateCodec, RoundTripsEveryStateOfASearch) {
  round_trip_every_state({{"grids", {{6, 1, 1}}}, {"loop_ranges", {1, 4}}, {"max_kernel_ops", 3}, {"max_block_ops", 7}},
                         false);
}

TEST(StateCodec, RoundTripsEveryStateOfASymbolicSearch) {
  round_trip_every_state({{"grids", {{6, 1, 1}, {12, 1, 1}}}, {"loop_ranges", {1, 4, 16}}, {"max_kernel_ops", 3},
                          {"max_block_ops", 6}},
                         true);
}

}  // namespace
}  // namespace ugs
