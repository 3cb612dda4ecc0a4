// The block emulator's shared tiles (src/eval/shared_tiles.h): which op tiles no block index reaches,
// and that computing them once gives the bits and the zero divisors every block computing them gives.
#include <gtest/gtest.h>

#include <cstring>

#include "eval/shared_tiles.h"
#include "test_util.h"
#include "ugs/eval/evaluator.h"
#include "ugs/eval/real_arith.h"
#include "ugs/field/field.h"

namespace ugs {
namespace {

using nlohmann::json;
using Dims = std::vector<int>;

json load(int t, const Dims& imap, int fmap) { return {{"t", t}, {"imap", imap}, {"fmap", fmap}}; }
json op(const char* name, const Dims& in) { return {{"op", name}, {"in", in}}; }

// One block graph over `inputs`, its output the tile `saved`.
KernelGraph block_graph(const std::vector<Dims>& inputs, const Dims& grid, int loop, const std::vector<json>& loads,
                        const std::vector<json>& ops, int saved, const Dims& omap) {
  json block = {{"op", "block"}, {"grid", grid}, {"loop", loop}, {"in", loads}, {"ops", ops}};
  block["out"] = std::vector<json>{json{{"t", saved}, {"omap", omap}}};
  json program = {{"inputs", inputs}, {"outputs", std::vector<int>{static_cast<int>(inputs.size())}}};
  program["kernels"] = std::vector<json>{block};
  return mugraph_from_json(program, "test", GraphRules{});
}

const Dims kBroadcast = {-1, -1, -1}, kColumns = {1, -1, -1};

// X [8, 64] read whole by every block, 16 columns an iteration; W [64, 32] split in columns over 4
// blocks, 16 rows an iteration.
struct Case {
  const char* what;
  KernelGraph graph;
};

std::vector<Case> cases() {
  const std::vector<Dims> xw = {{8, 64}, {64, 32}};
  const std::vector<json> loads = {load(0, kBroadcast, 1), load(1, kColumns, 0)};
  std::vector<Case> all;
  all.push_back({"silu of X, then X W per block (a loop tile shared at every iteration)",
                 block_graph(xw, {4, 1, 1}, 4, loads, {op("silu", {0}), op("matmul", {2, 1}), op("accum_sum", {3})},
                             4, kColumns)});
  all.push_back({"rms of X shared, X W per block, divided after the loop (a shared accumulator)",
                 block_graph(xw, {4, 1, 1}, 4, loads,
                             {op("matmul", {0, 1}), op("accum_sum", {2}), op("accum_rms_lastdim", {0}),
                              op("div", {3, 4})},
                             5, kColumns)});
  all.push_back({"exp of X's row sums after the loop, shared, times X W",
                 block_graph(xw, {4, 1, 1}, 4, loads,
                             {op("matmul", {0, 1}), op("accum_sum", {2}), op("accum_sum_lastdim", {0}),
                              op("exp", {4}), op("mul", {3, 5})},
                             6, kColumns)});
  all.push_back({"X / Y shared, with zero divisors, then times W per block",
                 block_graph({{8, 64}, {8, 64}, {64, 32}}, {4, 1, 1}, 4,
                             {load(0, kBroadcast, 1), load(1, kBroadcast, 1), load(2, kColumns, 0)},
                             {op("div", {0, 1}), op("matmul", {3, 2}), op("accum_sum", {4})}, 5, kColumns)});
  all.push_back({"a grid of two axes, X every block's, W split along one, the tiles saved along both",
                 block_graph(xw, {4, 2, 1}, 4, loads, {op("square", {0}), op("matmul", {2, 1}), op("accum_sum", {3})},
                             4, {1, 0, -1})});
  return all;
}

// Inputs of the test: the field's draws, with zeros written into every input but the last (W),
// so that divisions meet zero divisors.
template <class A>
std::vector<Tensor<typename A::Value>> inputs_with_zeros(const KernelGraph& g) {
  auto in = make_inputs<A>(g, 7);
  for (int i = 0; i + 1 < g.num_inputs; ++i)
    for (int64_t e = 0; e < in[i].numel(); e += 37) in[i].data[e] = A::zero();
  return in;
}

struct Outcome {
  std::vector<std::vector<uint8_t>> bytes;  // per output, its values' bytes (NaN compares equal to itself)
  uint64_t zero_divisors = 0;
};

template <class A>
Outcome run(const A& ar, const KernelGraph& g, bool sharing) {
  eval::set_shared_tiles(sharing);
  const auto in = inputs_with_zeros<A>(g);
  EvalStats stats;
  const auto out = evaluate(ar, g, std::span(in), &stats);
  Outcome o;
  o.zero_divisors = stats.zero_divisors;
  for (const auto& t : out) {
    o.bytes.emplace_back(t.data.size() * sizeof(t.data[0]));
    std::memcpy(o.bytes.back().data(), t.data.data(), o.bytes.back().size());
  }
  return o;
}

struct Restore {
  ~Restore() { eval::set_shared_tiles(true); }
};

TEST(SharedTiles, MarksTheOpTilesNoBlockIndexReaches) {
  const KernelGraph g = cases()[0].graph;  // tiles: X, W, silu, matmul, accum_sum
  const eval::SharedTiles gated = eval::shared_tiles(g.blocks[0]);
  EXPECT_TRUE(gated.any);
  EXPECT_EQ(gated.shared, (std::vector<uint8_t>{0, 0, 1, 0, 0}));
  EXPECT_EQ(gated.iterates, (std::vector<uint8_t>{1, 1, 1, 1, 0}));
  EXPECT_EQ(gated.per_block, (std::vector<uint8_t>{0, 1}));  // only the shared silu reads X
  const eval::SharedTiles rms = eval::shared_tiles(cases()[1].graph.blocks[0]);
  EXPECT_EQ(rms.shared, (std::vector<uint8_t>{0, 0, 0, 0, 1, 0}));
  EXPECT_EQ(rms.per_block, (std::vector<uint8_t>{1, 1}));  // the matmul reads X in every block

  BlockGraph one = g.blocks[0];  // one block: nothing to share
  one.grid = {1, 1, 1};
  EXPECT_FALSE(eval::shared_tiles(one).any);
  Restore restore;
  eval::set_shared_tiles(false);
  EXPECT_FALSE(eval::shared_tiles(g.blocks[0]).any);
}

TEST(SharedTiles, SameBitsAndZeroDivisorsAsEveryBlockComputingThem) {
  Restore restore;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.what);
    eval::set_shared_tiles(true);
    ASSERT_TRUE(eval::shared_tiles(c.graph.blocks[0]).any);
    auto check = [&](auto ar) {
      const Outcome shared = run(ar, c.graph, true), each = run(ar, c.graph, false);
      EXPECT_EQ(shared.bytes, each.bytes);
      EXPECT_EQ(shared.zero_divisors, each.zero_divisors);
      return each.zero_divisors;
    };
    WideArith wide;
    wide.omega = WideArith::draw_omega(3);
    MirageArith mirage;
    mirage.omega = MirageArith::draw_omega(3);
    const uint64_t zeros = check(wide);
    check(mirage);
    check(RealArith{});
    if (std::string(c.what).find("zero divisors") != std::string::npos) {
      EXPECT_GT(zeros, 0u);
    }
  }
}

}  // namespace
}  // namespace ugs
