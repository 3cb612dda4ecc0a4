// The compact state encoding of the bfs frontier (src/search/state_codec.h): every state of a small
// search survives encode → decode → encode byte for byte, and is well formed (state_check.h); damaged
// bytes, as a damaged checkpoint holds them, are refused or decode to a state the check then judges,
// never read past their end.
#include <gtest/gtest.h>

#include "search/bfs/state_check.h"
#include "search/bfs/state_codec.h"
#include "test_util.h"
#include "ugs/ir/canonical.h"
#include "ugs/search/generator/generator.h"

namespace ugs {
namespace {

// Every state of a search of rmsnorm_linear_small under `overrides`, depth first.
template <class Visit>
void every_state(const nlohmann::json& overrides, bool symbolic, Visit visit) {
  const Program p = load_program("rmsnorm_linear_small");
  SearchConfig cfg;
  apply_config_json(cfg, p.search_preset, p.name);
  apply_config_json(cfg, overrides, "test");
  cfg.symbolic = symbolic;
  resolve(cfg, p.graph);
  expr::ExprPool pool;
  const Generator gen(p.graph, cfg, pool);
  std::vector<State> stack{gen.root()};
  while (!stack.empty()) {
    const State s = stack.back();
    stack.pop_back();
    visit(s, cfg.rules());
    std::vector<Step> steps;
    PruneCounts pruned;
    gen.candidates(s, steps, pruned);
    for (const Step& st : steps) stack.push_back(gen.apply(s, st));
  }
}

// With its graph (hash), expressions and open block graph intact; a symbolic opening with its launches
// and the launches alive after each tile.
void round_trip_every_state(const nlohmann::json& overrides, bool symbolic) {
  size_t seen = 0, open = 0, in_family = 0;
  every_state(overrides, symbolic, [&](const State& s, const GraphRules& rules) {
    search_detail::Bytes a, b;
    search_detail::encode(s, a);
    State back;
    ASSERT_EQ(search_detail::decode(a.data(), back), a.data() + a.size());
    State bounded;
    ASSERT_EQ(search_detail::decode_bounded(a.data(), a.data() + a.size(), bounded), a.data() + a.size());
    EXPECT_TRUE(search_detail::well_formed(bounded, rules));
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
  });
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

// Each byte of some states' encodings changed (and each encoding cut short): every result is refused
// by decode_bounded or by well_formed, or is a state the check accepts; nothing is read past the end
// (the address sanitizer build would stop there) and nothing throws.
TEST(StateCodec, DamagedBytesAreRefusedNotReadPastTheirEnd) {
  size_t tried = 0, refused_bytes = 0, refused_graphs = 0, accepted = 0;
  size_t n = 0;
  every_state({{"grids", {{6, 1, 1}, {12, 1, 1}}}, {"loop_ranges", {1, 4, 16}}, {"max_kernel_ops", 3},
               {"max_block_ops", 5}},
              true, [&](const State& s, const GraphRules& rules) {
                if (n++ % 97 != 0) return;
                search_detail::Bytes good;
                search_detail::encode(s, good);
                auto judge = [&](const std::vector<uint8_t>& bytes) {
                  ++tried;
                  State back;
                  const uint8_t* end = bytes.data() + bytes.size();
                  const uint8_t* past = search_detail::decode_bounded(bytes.data(), end, back);
                  if (!past) {
                    ++refused_bytes;
                  } else if (!search_detail::well_formed(back, rules)) {
                    ++refused_graphs;
                  } else {
                    ++accepted;
                  }
                  EXPECT_TRUE(past == nullptr || past <= end);
                };
                for (size_t cut = 0; cut < good.size(); ++cut) judge({good.begin(), good.begin() + cut});
                for (size_t at = 0; at < good.size(); ++at)
                  for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
                    std::vector<uint8_t> bytes(good.begin(), good.end());
                    bytes[at] ^= flip;
                    judge(bytes);
                  }
              });
  EXPECT_GT(tried, 10000u);
  EXPECT_GT(refused_bytes, tried / 10);
  EXPECT_GT(refused_graphs, tried / 10);
  EXPECT_GT(accepted, 0u);  // a flipped expression id, say: the resume recomputes those
}

}  // namespace
}  // namespace ugs
