// The μGraph model: shape rules, block-graph validity, canonical order, hashing, JSON round trips.
#include <gtest/gtest.h>

#include <random>

#include "test_util.h"
#include "ugs/io/mugraph_json.h"
#include "ugs/ir/canonical.h"

namespace ugs {
namespace {

Shape S(std::initializer_list<int32_t> d) { return Shape::of(d); }

Op op(OpKind k, int a, int b = -1, int dim = 0, int to = 0) {
  Op o;
  o.kind = k;
  o.in = {a, b};
  o.dim = static_cast<int8_t>(dim);
  o.to = to;
  return o;
}

Verdict infer(const Op& o, Level level, std::vector<Shape> in, Shape* out) {
  return infer_shape(o, level, std::span(in), out);
}

TEST(ShapeRules, MatmulBroadcastReduceAndFold) {
  Shape out;
  EXPECT_EQ(infer(op(OpKind::Matmul, 0, 1), Level::Kernel, {S({2, 3, 4}), S({2, 4, 5})}, &out), Verdict::Ok);
  EXPECT_EQ(out, S({2, 3, 5}));
  EXPECT_EQ(infer(op(OpKind::Matmul, 0, 1), Level::Kernel, {S({3, 4}), S({5, 6})}, &out), Verdict::InnerDimMismatch);
  EXPECT_EQ(infer(op(OpKind::Matmul, 0, 1), Level::Kernel, {S({2, 3, 4}), S({3, 4, 5})}, &out), Verdict::BatchMismatch);
  EXPECT_EQ(infer(op(OpKind::Matmul, 0, 1), Level::Kernel, {S({4}), S({4})}, &out), Verdict::RankTooLow);
  EXPECT_EQ(infer(op(OpKind::Matmul, 0, 1), Level::Block, {S({2, 3, 4}), S({2, 4, 5})}, &out),
            Verdict::BlockBatchedMatmul);
  EXPECT_EQ(infer(op(OpKind::Matmul, 0, 1), Level::Block, {S({1, 3, 4}), S({1, 4, 5})}, &out), Verdict::Ok);

  EXPECT_EQ(infer(op(OpKind::Div, 0, 1), Level::Kernel, {S({2, 64}), S({2, 1})}, &out), Verdict::Ok);
  EXPECT_EQ(out, S({2, 64}));
  EXPECT_EQ(infer(op(OpKind::Add, 0, 1), Level::Kernel, {S({1, 5}), S({4, 1})}, &out), Verdict::Ok);
  EXPECT_EQ(out, S({4, 5}));
  EXPECT_EQ(infer(op(OpKind::Add, 0, 1), Level::Kernel, {S({2, 5}), S({3, 5})}, &out), Verdict::BroadcastMismatch);
  EXPECT_EQ(infer(op(OpKind::Mul, 0, 1), Level::Kernel, {S({2, 5}), S({5})}, &out), Verdict::RankMismatch);

  EXPECT_EQ(infer(op(OpKind::ReduceSum, 0, -1, 1), Level::Kernel, {S({2, 6, 3})}, &out), Verdict::Ok);
  EXPECT_EQ(out, S({2, 1, 3}));
  EXPECT_EQ(infer(op(OpKind::ReduceSum, 0, -1, 3), Level::Kernel, {S({2, 6, 3})}, &out), Verdict::BadDim);
  EXPECT_EQ(infer(op(OpKind::ReduceSumTo, 0, -1, 2, 16), Level::Kernel, {S({1, 4, 64})}, &out), Verdict::WrongLevel);
  EXPECT_EQ(infer(op(OpKind::ReduceSumTo, 0, -1, 2, 16), Level::Block, {S({1, 4, 64})}, &out), Verdict::Ok);
  EXPECT_EQ(out, S({1, 4, 16}));
  EXPECT_EQ(infer(op(OpKind::ReduceSumTo, 0, -1, 2, 24), Level::Block, {S({1, 4, 64})}, &out), Verdict::BadTo);
  EXPECT_EQ(infer(op(OpKind::AccumSumLastdimTo, 0, -1, 0, 8), Level::Block, {S({4, 64})}, &out), Verdict::Ok);
  EXPECT_EQ(out, S({4, 8}));
  EXPECT_EQ(infer(op(OpKind::AccumRmsLastdim, 0), Level::Block, {S({4, 64})}, &out), Verdict::Ok);
  EXPECT_EQ(out, S({4, 1}));
  EXPECT_EQ(infer(op(OpKind::AccumSum, 0), Level::Kernel, {S({4, 64})}, &out), Verdict::WrongLevel);
  EXPECT_EQ(infer(op(OpKind::Exp, 0, 1), Level::Kernel, {S({4}), S({4})}, &out), Verdict::Arity);
}

class BlockRules : public ::testing::Test {
 protected:
  void SetUp() override {
    bg.grid = {4, 2, 1};
    bg.loop = 4;
  }
  BlockGraph bg;
};

TEST_F(BlockRules, TilesFollowImapAndFmap) {
  ASSERT_EQ(bg.add_input(0, S({8, 64, 32}), {1, 2, kNoDim}, 0), Verdict::Ok);
  EXPECT_EQ(bg.tiles[0].shape, S({2, 16, 16}));
  EXPECT_EQ(bg.add_input(0, S({8, 62, 32}), {1, kNoDim, kNoDim}, kNoDim), Verdict::BadImap);  // 62 / 4
  EXPECT_EQ(bg.add_input(0, S({8, 64, 32}), {1, 1, kNoDim}, kNoDim), Verdict::BadImap);       // dim twice
  EXPECT_EQ(bg.add_input(0, S({8, 64, 32}), {1, kNoDim, 0}, kNoDim), Verdict::BadImap);       // z has size 1
  EXPECT_EQ(bg.add_input(0, S({8, 64, 32}), {1, kNoDim, kNoDim}, 3), Verdict::BadFmap);       // no dim 3
  EXPECT_EQ(bg.add_input(0, S({6, 64, 32}), {1, kNoDim, kNoDim}, 0), Verdict::BadFmap);       // 6 / 4
  BlockGraph one;  // loop 1: fmap must be φ (one spelling per μGraph)
  EXPECT_EQ(one.add_input(0, S({8, 8}), {kNoDim, kNoDim, kNoDim}, 0), Verdict::BadFmap);
}

// add_input and add_op build the new tile in place before their checks are done: a refused one must
// leave the graph as it was, and the next accepted one must not see what it left in the slot.
TEST_F(BlockRules, RefusedLoadersAndOpsLeaveTheGraphAsItWas) {
  ASSERT_EQ(bg.add_input(0, S({8, 64, 32}), {1, 2, kNoDim}, 0), Verdict::Ok);
  ASSERT_EQ(bg.add_op(op(OpKind::AccumSum, 0)), Verdict::Ok);  // leaves a post tile in slot 1
  bg.pop_op();
  const BlockGraph before = bg;
  EXPECT_EQ(bg.add_input(1, S({8, 64, 32}), {1, kNoDim, kNoDim}, 3), Verdict::BadFmap);  // after its imap
  EXPECT_EQ(bg.add_input(1, S({6, 64, 32}), {1, kNoDim, kNoDim}, 0), Verdict::BadFmap);
  EXPECT_EQ(bg.add_input(1, S({8, 62, 32}), {1, kNoDim, kNoDim}, kNoDim), Verdict::BadImap);
  EXPECT_EQ(bg.inputs, before.inputs);
  EXPECT_EQ(bg.tiles.size(), before.tiles.size());
  ASSERT_EQ(bg.add_input(1, S({8, 64}), {kNoDim, kNoDim, kNoDim}, kNoDim), Verdict::Ok);
  EXPECT_EQ(bg.tiles[1].shape, S({8, 64}));
  EXPECT_FALSE(bg.tiles[1].post);
  EXPECT_EQ(bg.inputs[1].tensor, 1);
  EXPECT_EQ(bg.inputs[1].fmap, kNoDim);

  ASSERT_EQ(bg.add_op(op(OpKind::AccumSum, 0)), Verdict::Ok);  // 2: post, [2, 16, 16]
  EXPECT_EQ(bg.add_op(op(OpKind::Add, 0, 2)), Verdict::MixedStage);
  EXPECT_EQ(bg.add_op(op(OpKind::Exp, 3)), Verdict::BadOperand);  // the slot it would fill
  EXPECT_EQ(bg.ops.size(), 1);
  EXPECT_EQ(bg.tiles.size(), 3);
  ASSERT_EQ(bg.add_op(op(OpKind::Exp, 1)), Verdict::Ok);  // 3: in loop, [8, 64]
  EXPECT_EQ(bg.tiles[3].shape, S({8, 64}));
  EXPECT_FALSE(bg.tiles[3].post);
  EXPECT_TRUE(bg.tiles[2].post);
}

TEST_F(BlockRules, LoaderAccumulatorSaverRule) {
  ASSERT_EQ(bg.add_input(0, S({16, 64}), {0, kNoDim, kNoDim}, 1), Verdict::Ok);  // [4, 16]
  ASSERT_EQ(bg.add_op(op(OpKind::Exp, 0)), Verdict::Ok);                          // 1: in loop
  EXPECT_EQ(bg.add_output(1, {0, 1, kNoDim}), Verdict::SaverOfPre);
  ASSERT_EQ(bg.add_op(op(OpKind::AccumSum, 1)), Verdict::Ok);  // 2: after loop
  EXPECT_EQ(bg.add_op(op(OpKind::AccumSum, 2)), Verdict::AccumOfPost);
  EXPECT_EQ(bg.add_op(op(OpKind::Add, 1, 2)), Verdict::MixedStage);
  ASSERT_EQ(bg.add_op(op(OpKind::Sqrt, 2)), Verdict::Ok);  // 3: after loop
  EXPECT_TRUE(bg.tiles[3].post);
  EXPECT_EQ(bg.add_output(3, {0, kNoDim, kNoDim}), Verdict::BadOmap);  // y has size 2: must map
  EXPECT_EQ(bg.add_output(3, {0, 0, kNoDim}), Verdict::BadOmap);
  ASSERT_EQ(bg.add_output(3, {0, 1, kNoDim}), Verdict::Ok);
  EXPECT_EQ(bg.output_shape(0), S({16, 32}));
  EXPECT_EQ(bg.check_complete(GraphRules{}), Verdict::Ok);
  bg.outputs.pop_back();
  EXPECT_EQ(bg.check_complete(GraphRules{}), Verdict::NoOutputs);
}

TEST_F(BlockRules, UnusedTilesAndSharedMemory) {
  ASSERT_EQ(bg.add_input(0, S({16, 64}), {0, kNoDim, kNoDim}, 1), Verdict::Ok);
  ASSERT_EQ(bg.add_input(1, S({16, 64}), {0, kNoDim, kNoDim}, 1), Verdict::Ok);
  ASSERT_EQ(bg.add_op(op(OpKind::AccumSum, 0)), Verdict::Ok);
  ASSERT_EQ(bg.add_output(2, {0, 1, kNoDim}), Verdict::Ok);
  EXPECT_EQ(bg.check_complete(GraphRules{}), Verdict::Unused);  // input 1 is loaded for nothing
  bg.inputs.pop_back();
  BlockGraph b2;
  b2.grid = {1, 1, 1};
  b2.loop = 1;
  ASSERT_EQ(b2.add_input(0, S({128, 256}), {kNoDim, kNoDim, kNoDim}, kNoDim), Verdict::Ok);
  ASSERT_EQ(b2.add_op(op(OpKind::AccumSum, 0)), Verdict::Ok);
  ASSERT_EQ(b2.add_output(1, {kNoDim, kNoDim, kNoDim}), Verdict::Ok);
  EXPECT_EQ(b2.smem_bytes(GraphRules{}), 2 * 128 * 256 * 2);
  EXPECT_EQ(b2.check_complete(GraphRules{}), Verdict::SharedMemory);  // 128 KiB > 96 KiB
  GraphRules big;
  big.smem_budget_bytes = 1 << 20;
  EXPECT_EQ(b2.check_complete(big), Verdict::Ok);
}

TEST(KernelGraph, BuildUndoAndOpenTensors) {
  KernelGraph g;
  ASSERT_EQ(g.add_input(S({4, 8})), Verdict::Ok);
  ASSERT_EQ(g.add_input(S({8, 2})), Verdict::Ok);
  const KernelGraph before = g;
  ASSERT_EQ(g.add_op(op(OpKind::Matmul, 0, 1)), Verdict::Ok);
  EXPECT_EQ(g.shape(2), S({4, 2}));
  EXPECT_EQ(g.open_tensors().size(), 1);
  EXPECT_EQ(g.add_op(op(OpKind::Matmul, 1, 0)), Verdict::InnerDimMismatch);
  EXPECT_EQ(g.add_op(op(OpKind::Exp, 5)), Verdict::BadOperand);
  EXPECT_EQ(g.add_input(S({1})), Verdict::Order);
  g.pop_op();
  EXPECT_EQ(structural_hash(g), structural_hash(before));
  EXPECT_EQ(g.num_tensors(), 2);
  ASSERT_EQ(g.add_op(op(OpKind::Matmul, 0, 1)), Verdict::Ok);
  ASSERT_EQ(g.add_op(op(OpKind::Exp, 2)), Verdict::Ok);
  const int32_t out = 3;
  EXPECT_EQ(g.set_outputs(std::span(&out, 1)), Verdict::Ok);
  EXPECT_EQ(g.check_complete(), Verdict::Ok);
  const int32_t in = 0;
  EXPECT_EQ(g.set_outputs(std::span(&in, 1)), Verdict::BadOperand);  // outputs name ops
}

TEST(KernelGraph, BlockGraphOutputsBecomeKernelTensors) {
  const KernelGraph g = test::reference("gqa_small");
  ASSERT_EQ(g.ops.size(), 2);
  EXPECT_EQ(g.ops[0].num_out, 2);
  EXPECT_EQ(g.shape(3), S({2, 16, 4}));   // row sums, one per key split
  EXPECT_EQ(g.shape(4), S({2, 16, 64}));  // P·V, four partials side by side
  EXPECT_EQ(g.shape(5), S({2, 16, 16}));
  EXPECT_EQ(g.producer(4), 0);
  EXPECT_EQ(g.producer(5), 1);
  EXPECT_EQ(g.producer(1), -1);
}

TEST(Canonical, ReferencesAreCanonicalAndRoundTripThroughJson) {
  for (const char* name : test::kReferences) {
    SCOPED_TRACE(name);
    const KernelGraph g = test::reference(name);
    EXPECT_TRUE(is_canonical(g));
    const KernelGraph back = mugraph_from_json(to_json(g), "round trip", GraphRules{});
    EXPECT_EQ(to_json(back), to_json(g));
    EXPECT_EQ(structural_hash(back), structural_hash(g));
    KernelGraph c = g;
    ASSERT_TRUE(canonicalize(c, GraphRules{}));
    EXPECT_EQ(to_json(c), to_json(g));
  }
}

// A graph written in another topological order, with swapped commutative operands and unsorted
// block inputs, canonicalizes to the reference and gets its hash.
TEST(Canonical, ShuffledSpellingsCanonicalizeToOneGraph) {
  const KernelGraph ref = test::reference("gated_mlp_small");
  nlohmann::json j = to_json(ref);
  auto& k = j["kernels"][0];
  // Loaders: X, W1, W2 -> W2, X, W1 (tiles 0,1,2 -> 1,2,0).
  const nlohmann::json in = k["in"];
  k["in"] = {in[2], in[0], in[1]};
  const std::vector<int> tile = {1, 2, 0};
  nlohmann::json ops = nlohmann::json::array();
  // Original ops (tiles 3..8): matmul(0,1), matmul(0,2), accum(3), accum(4), silu(5), mul(6,7).
  // Rewritten in another valid order: matmul(X,W2), matmul(X,W1), accum, accum, silu, mul(b, a).
  ops.push_back({{"op", "matmul"}, {"in", {tile[0], tile[2]}}});  // 3: X·W2
  ops.push_back({{"op", "matmul"}, {"in", {tile[0], tile[1]}}});  // 4: X·W1
  ops.push_back({{"op", "accum_sum"}, {"in", {4}}});              // 5: acc X·W1
  ops.push_back({{"op", "silu"}, {"in", {5}}});                   // 6
  ops.push_back({{"op", "accum_sum"}, {"in", {3}}});              // 7: acc X·W2
  ops.push_back({{"op", "mul"}, {"in", {7, 6}}});                 // 8
  k["ops"] = ops;
  KernelGraph g = mugraph_from_json(j, "shuffled", GraphRules{});
  EXPECT_FALSE(is_canonical(g));
  EXPECT_NE(structural_hash(g), structural_hash(ref));
  ASSERT_TRUE(canonicalize(g, GraphRules{}));
  EXPECT_TRUE(is_canonical(g));
  EXPECT_EQ(to_json(g), to_json(ref));
  EXPECT_EQ(structural_hash(g), structural_hash(ref));
}

// The step predicate: an op must rank above every op placed since its operands became available;
// an op that consumes the latest result is always admissible (Mirage's "above the last op" would
// refuse LoRA's final add).
TEST(Canonical, MayAppendFollowsTheGreedyOrder) {
  KernelGraph g;
  g.add_input(S({4, 4}));
  g.add_input(S({4, 4}));
  EXPECT_TRUE(may_append(g, op(OpKind::Exp, 1)));
  ASSERT_EQ(g.add_op(op(OpKind::Exp, 1)), Verdict::Ok);          // 2, rank [1]
  EXPECT_FALSE(may_append(g, op(OpKind::Exp, 0)));               // [0] was ready before [1]
  EXPECT_FALSE(may_append(g, op(OpKind::Exp, 1)));               // a duplicate
  EXPECT_TRUE(may_append(g, op(OpKind::Sqrt, 1)));               // same operands, later kind
  EXPECT_TRUE(may_append(g, op(OpKind::Add, 0, 2)));             // consumes the latest result
  EXPECT_FALSE(may_append(g, op(OpKind::Add, 2, 0)));            // commutative operands unordered
  ASSERT_EQ(g.add_op(op(OpKind::Add, 0, 2)), Verdict::Ok);       // 3, rank [0, 2]
  EXPECT_TRUE(may_append(g, op(OpKind::Mul, 0, 3)));
  EXPECT_FALSE(may_append(g, op(OpKind::Add, 0, 1)));            // ready from the start, ranks below [1]
  EXPECT_TRUE(may_append(g, op(OpKind::Mul, 0, 2)));             // ([0,2], mul) > ([0,2], add)
  EXPECT_FALSE(may_append(g, op(OpKind::Add, 0, 2)));            // a duplicate of the last op
  ASSERT_TRUE(is_canonical(test::reference("lora_small")));
}

// A block graph about to close ranks against the window's block ops by their inputs, then by their
// structural hashes, which the predicate computes only on a tie: as the comparison of whole ranks.
TEST(Canonical, MayAppendBlockRanksTiesByTheBlockHash) {
  KernelGraph prefix = test::reference("gqa_small");
  prefix.pop_op();  // its first block graph alone, reading the kernel inputs
  const BlockGraph first = prefix.blocks[prefix.ops[0].block];
  const auto rank_of_block = [](const BlockGraph& bg) {
    OpRank r;
    for (const BlockInput& in : bg.inputs) r.in.push_back(in.tensor);
    r.kind = OpKind::Block;
    r.block_key = structural_hash(bg);
    return r;
  };
  EXPECT_FALSE(may_append_block(prefix, first));  // a duplicate
  int above = 0, below = 0;
  for (int32_t loop = 1; loop <= 64; ++loop) {
    BlockGraph other = first;  // the same inputs: only the hash tells them apart
    other.loop = loop;
    if (loop == first.loop) continue;
    const bool ranks_above = compare(rank_of(prefix, 0), rank_of_block(other)) < 0;
    EXPECT_EQ(may_append_block(prefix, other), ranks_above) << "loop " << loop;
    ++(ranks_above ? above : below);
  }
  EXPECT_GT(above, 0);  // both outcomes met
  EXPECT_GT(below, 0);
}

// The block-level predicate compares packed ranks; they must order every pair of block ops as
// compare() orders their ranks (a random sweep over operands, kinds and attributes, signs included).
TEST(Canonical, PackedRanksOrderBlockOpsAsCompareDoes) {
  std::mt19937 rng(7);
  const std::array<int, 6> dims{-4, -1, 0, 1, 3, 127}, tos{-70000, -1, 0, 1, 16, 1 << 30};
  auto random_op = [&] {
    OpKind k;
    do k = static_cast<OpKind>(rng() % kNumOpKinds);
    while (k == OpKind::Block);
    const int a = static_cast<int>(rng() % 4), b = arity(k) > 1 ? static_cast<int>(rng() % 4) : -1;
    return op(k, a, b, dims[rng() % dims.size()], tos[rng() % tos.size()]);
  };
  for (int i = 0; i < 200000; ++i) {
    const Op x = random_op(), y = random_op();
    const int c = compare(rank_of(x), rank_of(y));
    const uint64_t px = packed_rank(x), py = packed_rank(y);
    ASSERT_EQ(c < 0, px < py) << i;
    ASSERT_EQ(c == 0, px == py) << i;
  }
  // kMaxTiles - 1, the largest operand a block op can have, still packs in order.
  EXPECT_LT(packed_rank(op(OpKind::Exp, kMaxTiles - 2)), packed_rank(op(OpKind::Exp, kMaxTiles - 1)));
}

TEST(Hash, EveryFieldChangesTheHash) {
  const KernelGraph ref = test::reference("rmsnorm_linear_small");
  const uint64_t h = structural_hash(ref);
  const nlohmann::json j = to_json(ref);
  const std::vector<std::pair<std::string, nlohmann::json>> edits = {
      {"/kernels/0/grid/0", 3},          {"/kernels/0/loop", 2},         {"/kernels/0/in/0/fmap", -1},
      {"/kernels/0/ops/3/op", "mul"}, {"/kernels/0/ops/3/in", {2, 4}},
      {"/kernels/0/ops/0/op", "accum_sum_lastdim"}};
  for (const auto& [path, value] : edits) {
    nlohmann::json m = j;
    m[nlohmann::json::json_pointer(path)] = value;
    if (path == "/kernels/0/in/0/fmap") m["/kernels/0/in/1/fmap"_json_pointer] = -1;
    const KernelGraph g = mugraph_from_json(m, path, GraphRules{});
    EXPECT_NE(structural_hash(g), h) << path;
  }
}

}  // namespace
}  // namespace ugs
