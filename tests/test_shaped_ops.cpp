// The generator's shared memo of shaped block ops: whatever the threads and the order they meet the
// block graphs in, a lookup gives exactly what the shape check computes without the memo.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <random>
#include <vector>

#include "search/generator/reach.h"
#include "search/generator/shaped_ops.h"
#include "search/generator/shaped_pairs.h"
#include "search_util.h"
#include "ugs/expr/op_expr.h"
#include "ugs/io/program.h"
#include "ugs/io/spaces.h"
#include "ugs/search/generator/generator.h"

namespace ugs::search_detail {
namespace {

// The open block graphs of a search's first levels: a few thousand with many repeated signatures.
std::vector<BlockGraph> block_graphs(const Program& p, const SearchConfig& cfg, size_t limit) {
  expr::ExprPool pool;
  const Generator gen(p.graph, cfg, pool);
  std::vector<State> level{gen.root()};
  std::vector<BlockGraph> out;
  std::vector<Step> steps;
  PruneCounts pruned;
  while (!level.empty() && out.size() < limit) {
    std::vector<State> next;
    for (const State& s : level) {
      steps.clear();
      gen.candidates(s, steps, pruned);
      for (const Step& st : steps) {
        next.push_back(gen.apply(s, st));
        if (next.back().open) out.push_back(next.back().block);
      }
    }
    level = std::move(next);
  }
  return out;
}

std::vector<ShapedOp> flat(const ShapedView& view) {
  std::vector<ShapedOp> ops;
  for (int k = 0; k < view.parts; ++k) ops.insert(ops.end(), view.begin[k], view.begin[k] + view.size[k]);
  return ops;
}

bool same(const ShapedView& got, const ShapedOps& want) {
  const std::vector<ShapedOp> ops = flat(got);
  if (got.rejected != want.rejected || ops.size() != want.ops.size()) return false;
  for (size_t i = 0; i < want.ops.size(); ++i)
    if (!(ops[i].op() == want.ops[i].op()) || ops[i].numel != want.ops[i].numel || ops[i].post != want.ops[i].post)
      return false;
  return true;
}

TEST(ShapedOpsMemo, LookupsFromManyThreadsEqualTheShapeCheck) {
  const Program p = load_program("gated_mlp_small");
  const SearchConfig cfg = test::config_for(p);
  const std::vector<BlockGraph> graphs = block_graphs(p, cfg, 4000);
  ASSERT_GT(graphs.size(), 1000u);
  std::vector<ShapedOps> want(graphs.size());
  for (size_t i = 0; i < graphs.size(); ++i) want[i] = compute_shaped_block_ops(graphs[i], cfg);

  const ShapedOpsMemo memo(cfg);
  std::vector<uint8_t> ok(graphs.size() * 3, 0);
#pragma omp parallel for schedule(dynamic, 7) num_threads(4)
  for (size_t k = 0; k < ok.size(); ++k) {  // every graph three times, interleaved over the threads
    const size_t i = (k * 7919) % graphs.size();
    ok[k] = same(memo.lookup(graphs[i]), want[i]);
  }
  for (size_t k = 0; k < ok.size(); ++k) EXPECT_TRUE(ok[k]) << "lookup " << k;
  const auto stats = memo.stats();
  EXPECT_GT(stats.entries, 0u);
  EXPECT_LT(stats.entries, graphs.size());  // signatures repeat: fewer entries than graphs
}

TEST(ShapedOpsMemo, ListsStayValidWhileOthersInsert) {
  const Program p = load_program("rmsnorm_linear_small");
  const SearchConfig cfg = test::config_for(p);
  const std::vector<BlockGraph> graphs = block_graphs(p, cfg, 2000);
  ASSERT_FALSE(graphs.empty());
  const ShapedOpsMemo memo(cfg);
  const ShapedView first = memo.lookup(graphs[0]);
  const ShapedOps copy{flat(first), first.rejected};
  for (const BlockGraph& b : graphs) memo.lookup(b);
  EXPECT_TRUE(same(first, copy));  // an entry never moves once published
  EXPECT_TRUE(same(memo.lookup(graphs[0]), compute_shaped_block_ops(graphs[0], cfg)));
}

TEST(ShapedOpsMemo, PastItsBudgetListsAreComputedAndStillRight) {
  const Program p = load_program("lora_small");
  const SearchConfig cfg = test::config_for(p);
  const std::vector<BlockGraph> graphs = block_graphs(p, cfg, 1000);
  ASSERT_FALSE(graphs.empty());
  const ShapedOpsMemo memo(cfg, 0);
  std::vector<uint8_t> ok(graphs.size(), 0);
#pragma omp parallel for num_threads(2)
  for (size_t i = 0; i < graphs.size(); ++i) ok[i] = same(memo.lookup(graphs[i]), compute_shaped_block_ops(graphs[i], cfg));
  for (size_t i = 0; i < ok.size(); ++i) EXPECT_TRUE(ok[i]) << "graph " << i;
  EXPECT_EQ(memo.stats().entries, 0u);
}

// Past the budget, a thread keeps the parts it computed last: a child looked up after its parent
// computes its last part only, and a block graph looked up again computes nothing.
TEST(ShapedOpsMemo, PastItsBudgetAChildAfterItsParentComputesOnlyItsLastPart) {
  const Program p = load_program("gated_mlp_small");
  const SearchConfig cfg = test::config_for(p);
  const std::vector<BlockGraph> graphs = block_graphs(p, cfg, 4000);
  const ShapedOpsMemo memo(cfg, 0);
  int checked = 0;
  for (const BlockGraph& child : graphs) {
    if (child.ops.empty()) continue;
    BlockGraph parent = child;
    parent.pop_op();
    EXPECT_TRUE(same(memo.lookup(parent), compute_shaped_block_ops(parent, cfg)));
    const size_t computed = memo.stats().computed;
    EXPECT_TRUE(same(memo.lookup(child), compute_shaped_block_ops(child, cfg)));
    EXPECT_LE(memo.stats().computed, computed + 1);
    EXPECT_TRUE(same(memo.lookup(child), compute_shaped_block_ops(child, cfg)));
    EXPECT_LE(memo.stats().computed, computed + 1);
    ++checked;
  }
  EXPECT_GT(checked, 1000);
  EXPECT_EQ(memo.stats().entries, 0u);
}

// A list is kept in parts, one per tile: a block graph one op longer than another shares all its
// parts but the last, so looking it up after the shorter one adds one node and computes one part.
TEST(ShapedOpsMemo, AChildSharesItsParentsPartsAndAddsOne) {
  const Program p = load_program("gated_mlp_small");
  const SearchConfig cfg = test::config_for(p);
  const std::vector<BlockGraph> graphs = block_graphs(p, cfg, 4000);
  const ShapedOpsMemo memo(cfg);
  int checked = 0, added = 0;
  for (const BlockGraph& child : graphs) {
    if (child.ops.empty()) continue;
    BlockGraph parent = child;
    parent.pop_op();
    const ShapedView before = memo.lookup(parent);
    const size_t nodes = memo.stats().entries;
    const ShapedView after = memo.lookup(child);
    EXPECT_LE(memo.stats().entries, nodes + 1);  // the child's last part, unless an earlier child made it
    added += memo.stats().entries == nodes + 1;
    ASSERT_EQ(after.parts, before.parts + 1);
    for (int k = 0; k < before.parts; ++k) {
      EXPECT_EQ(after.begin[k], before.begin[k]) << "part " << k;
      EXPECT_EQ(after.size[k], before.size[k]) << "part " << k;
    }
    for (int k = 0; k < after.parts; ++k)  // part k: the ops whose last operand is tile k
      for (uint32_t i = 0; i < after.size[k]; ++i) {
        const ShapedOp& op = after.begin[k][i];
        const int last = std::max<int>(op.in[0], op.in[1] == ShapedOp::kNoOperand ? -1 : op.in[1]);
        EXPECT_EQ(last, k);
      }
    EXPECT_TRUE(same(after, compute_shaped_block_ops(child, cfg)));
    ++checked;
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(added, 10);
}

// Mirage's space of an attention program: its op lists (reductions with every dim and fold size) and
// its grids give the pair lists many tile classes and variants.
SearchConfig mirage_config(const Program& p) {
  SearchConfig cfg = space_config(p, Space::Mirage);
  resolve(cfg, p.graph);
  return cfg;
}

// A part put together from the pair lists is the shape check's, op for op and in order, for every tile
// of every block graph, whichever graphs the thread met before (the classes are numbered as met).
TEST(ShapedPairs, EveryPartIsTheShapeChecksOwn) {
  for (const char* name : {"gqa_small", "rmsnorm_linear_small", "lora_small"}) {
    const Program p = load_program(name);
    const SearchConfig cfg = mirage_config(p);
    const std::vector<BlockGraph> graphs = block_graphs(p, cfg, 3000);
    ASSERT_GT(graphs.size(), 500u) << name;
    ShapedPairs& pairs = ShapedPairs::of((uint64_t{1} << 62) + graphs.size(), cfg);  // no memo has this id
    size_t tiles = 0;
    for (size_t i = 0; i < graphs.size(); ++i) {
      const BlockGraph& b = graphs[(i * 7919) % graphs.size()];
      ShapedOps got;
      std::vector<uint32_t> classes;
      for (int k = 0; k < b.tiles.size(); ++k) {
        classes.push_back(pairs.class_of(key_of(b.tiles[k]), b.tiles[k]));
        pairs.append_part(classes, got);
      }
      tiles += b.tiles.size();
      ShapedView view;
      view.parts = 1;
      view.set(0, got.ops);
      view.rejected = got.rejected;
      ASSERT_TRUE(same(view, compute_shaped_block_ops(b, cfg))) << name << ", graph " << i;
    }
    EXPECT_LT(pairs.classes(), tiles / 10) << name;  // tiles repeat: what makes pair lists pay
    EXPECT_GT(pairs.pairs(), pairs.classes()) << name;
  }
}

// A thread that serves two memos in turn numbers the classes anew for each: what it computed under one
// config is never read under the other.
TEST(ShapedPairs, AThreadServingTwoMemosInTurnKeepsThemApart) {
  const Program p = load_program("gqa_small");
  const SearchConfig preset = test::config_for(p), mirage = mirage_config(p);
  const std::vector<BlockGraph> graphs = block_graphs(p, mirage, 500);
  const ShapedOpsMemo a(preset, 0), b(mirage, 0);  // no budget: every part comes from the pairs
  for (const BlockGraph& g : graphs) {
    EXPECT_TRUE(same(a.lookup(g), compute_shaped_block_ops(g, preset)));
    EXPECT_TRUE(same(b.lookup(g), compute_shaped_block_ops(g, mirage)));
  }
}

// A memo that fills partway holds some prefixes and not others; a prefix it lacks then is lacking for
// good, and each thread remembers so. Lookups stay right, again and again, from several threads.
TEST(ShapedOpsMemo, AMemoFullPartwayGivesTheShapeCheckAgainAndAgain) {
  const Program p = load_program("gqa_small");
  const SearchConfig cfg = mirage_config(p);
  const std::vector<BlockGraph> graphs = block_graphs(p, cfg, 4000);
  std::vector<ShapedOps> want(graphs.size());
  for (size_t i = 0; i < graphs.size(); ++i) want[i] = compute_shaped_block_ops(graphs[i], cfg);
  const ShapedOpsMemo memo(cfg, 64 << 10);
  std::vector<uint8_t> ok(graphs.size() * 4, 0);
#pragma omp parallel for schedule(dynamic, 5) num_threads(3)
  for (size_t k = 0; k < ok.size(); ++k) {
    const size_t i = (k * 7919) % graphs.size();
    ok[k] = same(memo.lookup(graphs[i]), want[i]);
  }
  for (size_t k = 0; k < ok.size(); ++k) EXPECT_TRUE(ok[k]) << "lookup " << k;
  EXPECT_GT(memo.stats().entries, 10u);  // it took some prefixes before it filled
}

// Near the op limit every op must consume unused tiles, and the generator skips a part whose ops
// cannot (BlockReach::part_may_pass): no op of a skipped part passes the reach check, whatever the
// savers allowed, and in a space whose limit bites some parts are skipped.
TEST(BlockReach, APartItSkipsHoldsNoOpThatPasses) {
  const Program p = load_program("gqa_small");
  SearchConfig cfg = mirage_config(p);
  cfg.max_block_ops = 6;
  const std::vector<BlockGraph> graphs = block_graphs(p, cfg, 20000);
  int64_t skipped = 0, kept = 0;
  for (const BlockGraph& b : graphs) {
    if (b.inputs.size() + b.ops.size() >= cfg.max_block_ops) continue;
    const ShapedOps all = compute_shaped_block_ops(b, cfg);
    for (int64_t savers = 0; savers <= cfg.max_block_outputs; ++savers) {
      const BlockReach reach(b, savers, cfg);
      for (const ShapedOp& op : all.ops) {
        const int last = std::max<int>(op.in[0], op.in[1] == ShapedOp::kNoOperand ? -1 : op.in[1]);
        if (reach.part_may_pass(last)) {
          ++kept;
          continue;
        }
        ++skipped;
        ASSERT_FALSE(reach.after(op.op(), op.post)) << "part " << last << ", savers " << savers;
      }
    }
  }
  EXPECT_GT(skipped, 1000);
  EXPECT_GT(kept, 1000);
}

TEST(ShapedOp, KeepsTheOpAndSaturatesTheElementCount) {
  Op unary;
  unary.kind = OpKind::ReduceSumTo;
  unary.dim = 2;
  unary.to = 64;
  unary.in = {kMaxTiles - 1, -1};
  Tile t;
  t.shape = Shape::of({1, 16, 64});
  t.post = true;
  const ShapedOp a = ShapedOp::of(unary, t);
  EXPECT_EQ(a.op(), unary);
  EXPECT_EQ(a.numel, 1024u);
  EXPECT_TRUE(a.post);

  Op binary;
  binary.kind = OpKind::Matmul;
  binary.in = {0, 3};
  t.shape = Shape::of({65536, 65536, 2});  // 2^33 elements: no budget admits it, saturated or not
  t.post = false;
  const ShapedOp b = ShapedOp::of(binary, t);
  EXPECT_EQ(b.op(), binary);
  EXPECT_EQ(b.numel, UINT32_MAX);
  EXPECT_FALSE(b.post);
}

// The expressions a state's block-op steps carry come part by part from the states met before
// (prefix_queries.h); whatever the order the states come in, each equals the expression computed anew.
TEST(PrefixQueries, EveryStepsExpressionIsTheOneComputedAnew) {
  const Program p = load_program("gqa_small");
  const SearchConfig cfg = test::config_for(p);
  expr::ExprPool pool;
  const Generator gen(p.graph, cfg, pool);
  std::vector<State> open, level{gen.root()};
  std::vector<Step> steps;
  PruneCounts pruned;
  while (!level.empty() && open.size() < 20000) {  // level order, as bfs meets them
    std::vector<State> next;
    for (const State& s : level) {
      steps.clear();
      gen.candidates(s, steps, pruned);
      for (const Step& st : steps) next.push_back(gen.apply(s, st));
    }
    for (const State& s : next)
      if (s.open) open.push_back(s);
    level = std::move(next);
  }
  ASSERT_GT(open.size(), 5000u);
  std::vector<State> shuffled = open;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(7));
  size_t checked = 0;
  for (const std::vector<State>* order : {&open, &shuffled, &open})
    for (const State& s : *order) {
      steps.clear();
      gen.candidates(s, steps, pruned);
      for (const Step& st : steps) {
        if (st.kind != Step::Kind::BlockOp) continue;
        const int n = arity(st.op.kind), a = st.op.in[0], b = st.op.in[1];
        const std::array<Shape, 2> shapes{s.block.tiles[a].shape, b >= 0 ? s.block.tiles[b].shape : Shape{}};
        const std::array<expr::ExprId, 2> ex{s.bexpr[a], b >= 0 ? s.bexpr[b] : s.bexpr[a]};
        ASSERT_EQ(st.query, expr::block_op_expr(pool, st.op, std::span(ex.data(), n), std::span(shapes.data(), n),
                                                s.block.loop));
        ++checked;
      }
    }
  EXPECT_GT(checked, 10000u);
}

}  // namespace
}  // namespace ugs::search_detail
