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

// Every state of a search of rmsnorm_linear_small under `overrides`, depth first, with its steps.
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
    std::vector<Step> steps;
    PruneCounts pruned;
    gen.candidates(s, steps, pruned);
    visit(s, cfg.rules(), steps);
    for (const Step& st : steps) stack.push_back(gen.apply(s, st));
  }
}

// With its graph (hash), expressions and open block graph intact; a symbolic opening with its launches
// and the launches alive after each tile.
void round_trip_every_state(const nlohmann::json& overrides, bool symbolic) {
  size_t seen = 0, open = 0, in_family = 0;
  every_state(overrides, symbolic, [&](const State& s, const GraphRules& rules, const std::vector<Step>&) {
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

bool same_fields(const Step& a, const Step& b) {
  return a.kind == b.kind && a.launch == b.launch && a.launch_base == b.launch_base && a.op == b.op &&
         a.grid == b.grid && a.loop == b.loop && a.inputs == b.inputs && a.omap == b.omap && a.launches == b.launches;
}

std::vector<uint8_t> encoded(const Step& st) {
  uint8_t buf[search_detail::kMaxEncodedStep];
  return {buf, search_detail::encode(st, buf)};
}

// Every step of a search, concrete and symbolic (openings, ops with their launches, closings), comes
// back field for field, its query left out; the bytes are the fields only, whatever the unused input slots hold; an
// encoding cut short is refused.
TEST(StateCodec, StepsRoundTripFieldByField) {
  size_t seen = 0, openings = 0, with_launches = 0;
  const auto check = [&](const State&, const GraphRules&, const std::vector<Step>& steps) {
    for (const Step& st : steps) {
      const std::vector<uint8_t> bytes = encoded(st);
      ASSERT_GE(bytes.size(), search_detail::kMinEncodedStep);
      Step back;
      back.query = 7;
      ASSERT_EQ(search_detail::decode_bounded(bytes.data(), bytes.data() + bytes.size(), back),
                bytes.data() + bytes.size());
      EXPECT_TRUE(same_fields(back, st));
      EXPECT_EQ(back.query, kNoQuery);
      if (seen++ % 31 == 0) {
        Step other = st;  // the same step with other bytes past its inputs
        const int n = other.inputs.size();
        other.inputs.resize(kMaxBlockInputs);
        for (int i = n; i < kMaxBlockInputs; ++i) other.inputs[i] = BlockInput{5, {1, 2, 0}, 1};
        other.inputs.resize(n);
        other.query = st.query + 1;
        EXPECT_EQ(encoded(other), bytes);
        for (size_t cut = 0; cut < bytes.size(); ++cut)
          EXPECT_EQ(search_detail::decode_bounded(bytes.data(), bytes.data() + cut, back), nullptr);
      }
      openings += st.kind == Step::Kind::OpenBlock;
      with_launches += st.launches != 0;
    }
  };
  // The output checks off: they cut most of this space's states, and the codec needs many.
  const nlohmann::json space = {{"grids", {{6, 1, 1}, {12, 1, 1}}}, {"loop_ranges", {1, 4, 16}}, {"max_kernel_ops", 3},
                                {"max_block_ops", 5}, {"output_reach", 0}, {"expr_reach", 0}};
  every_state(space, false, check);
  every_state(space, true, check);
  EXPECT_GT(seen, 5000u);
  EXPECT_GT(openings, 20u);
  EXPECT_GT(with_launches, 100u);
}

// Each byte of some states' encodings changed (and each encoding cut short): every result is refused
// by decode_bounded or by well_formed, or is a state the check accepts; nothing is read past the end
// (the address sanitizer build would stop there) and nothing throws.
TEST(StateCodec, DamagedBytesAreRefusedNotReadPastTheirEnd) {
  size_t tried = 0, refused_bytes = 0, refused_graphs = 0, accepted = 0;
  size_t n = 0;
  // The expression check of the last block graph off: it cuts most of this space's states.
  every_state({{"grids", {{6, 1, 1}, {12, 1, 1}}}, {"loop_ranges", {1, 4, 16}}, {"max_kernel_ops", 3},
               {"max_block_ops", 5}, {"expr_reach", 0}},
              true, [&](const State& s, const GraphRules& rules, const std::vector<Step>&) {
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
