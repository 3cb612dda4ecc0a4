// The bfs frontier's tree of steps (src/search/state_tree.h, cursor.h): every step packs into a node
// and back unchanged, and a cursor moved to the nodes of a search's levels in any order stands on
// exactly the state that applying the steps from the root makes, with a key that only the path decides.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "search/bfs/cursor.h"
#include "search/bfs/slab_codec.h"
#include "search/bfs/state_tree.h"
#include "search_util.h"
#include "ugs/io/program.h"
#include "ugs/io/spaces.h"

namespace ugs::search_detail {
namespace {

Bytes encoded(const State& s) {
  Bytes b;
  encode(s, b);
  return b;
}

// A small search's first levels, both as states (made by applying steps) and as a tree of nodes.
struct Tree {
  std::vector<Level> levels;
  std::vector<std::vector<State>> states;  // by level, in node order
  std::vector<std::vector<uint64_t>> keys;
  std::vector<std::vector<NodeId>> ids;
};

// Each level keeps an evenly spread `cap` of the children (a State is kilobytes).
Tree grow(const Generator& gen, int depth, size_t cap, size_t max_nodes_per_slab) {
  Tree t;
  t.levels.resize(depth + 1);
  t.states.resize(depth + 1);
  t.keys.resize(depth + 1);
  t.ids.resize(depth + 1);
  const State root = gen.root();
  NodeSlab slab;
  const Bytes r = encoded(root);
  slab.push_base(r.data(), r.size(), 42);
  t.levels[0].add(std::move(slab));
  t.states[0] = {root};
  t.keys[0] = {42};
  t.levels[0].pending_ids(t.ids[0]);
  std::vector<Step> steps;
  PruneCounts pruned;
  for (int d = 0; d < depth; ++d) {
    size_t children = 0;
    for (const State& s : t.states[d]) {
      steps.clear();
      gen.candidates(s, steps, pruned);
      children += steps.size();
    }
    const size_t every = std::max<size_t>(1, children / cap);
    NodeSlab next;
    size_t k = 0;
    for (size_t i = 0; i < t.states[d].size(); ++i) {
      steps.clear();
      gen.candidates(t.states[d][i], steps, pruned);
      for (const Step& st : steps) {
        if (k++ % every != 0) continue;
        if (next.nodes.size() == max_nodes_per_slab) t.levels[d + 1].add(std::exchange(next, NodeSlab{}));
        next.push_child(t.ids[d][i], st);
        t.states[d + 1].push_back(gen.apply(t.states[d][i], st));
        t.keys[d + 1].push_back(child_key(t.keys[d][i], step_hash(st)));
      }
    }
    t.levels[d + 1].add(std::move(next));
    t.levels[d + 1].pending_ids(t.ids[d + 1]);
  }
  return t;
}

TEST(StateTree, StepsPackIntoNodesAndBack) {
  const Program p = load_program("gated_mlp_small");
  const SearchConfig cfg = test::config_for(p, {{"grids", {{8, 1, 1}, {16, 1, 1}}}, {"loop_ranges", {1, 4, 16}}});
  expr::ExprPool pool;
  const Generator gen(p.graph, cfg, pool);
  const Tree t = grow(gen, 6, 2000, NodeSlab::kNodes);
  size_t kinds[4] = {0, 0, 0, 0};
  for (int d = 1; d <= 6; ++d)
    for (NodeId id : t.ids[d]) {
      const Node& n = t.levels[d].node(id);
      const Step st = unpack_step(n, t.levels[d].slab_of(id).whole_steps);
      ++kinds[static_cast<int>(st.kind)];
      EXPECT_EQ(pack_step(st, static_cast<uint32_t>(n.step >> 32)), n.step);
      EXPECT_EQ(step_hash(st), step_hash(n, t.levels[d].slab_of(id).whole_hashes));
      if (is_op(n)) {
        EXPECT_TRUE(op_of(n) == st.op);
      }
    }
  for (size_t k : kinds) EXPECT_GT(k, 0u);  // every kind of step occurs
  for (int d = 1; d <= 6; ++d) {  // distinct states, distinct keys
    std::vector<uint64_t> keys = t.keys[d];
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(std::adjacent_find(keys.begin(), keys.end()), keys.end()) << "level " << d;
  }
}

TEST(StateTree, ACursorStandsOnTheStateTheStepsMakeInAnyOrder) {
  const Program p = load_program("rmsnorm_linear_small");
  const SearchConfig cfg = test::config_for(p);
  expr::ExprPool pool;
  const Generator gen(p.graph, cfg, pool);
  const Tree t = grow(gen, 8, 3000, 1000);  // several slabs per level
  std::vector<std::pair<int, size_t>> all;
  for (int d = 0; d <= 8; ++d)
    for (size_t i = 0; i < t.ids[d].size(); ++i) all.emplace_back(d, i);
  ASSERT_GT(all.size(), 15000u);
  std::mt19937_64 rng(7);
  std::vector<std::pair<int, size_t>> order = all;  // level order first (a batch's), then shuffled
  std::shuffle(all.begin(), all.end(), rng);
  order.insert(order.end(), all.begin(), all.end());
  Cursor c;
  size_t checked = 0, open = 0, mismatches = 0;
  for (const auto& [d, i] : order) {
    c.move_to(t.levels, d, t.ids[d][i], gen, 1);
    mismatches += encoded(c.state()) != encoded(t.states[d][i]);
    if (checked % 2 == 0) mismatches += c.key() != t.keys[d][i];  // keys are taken when asked: some moves ask none
    ++checked;
    open += c.state().open;
  }
  EXPECT_EQ(mismatches, 0u) << "of " << checked;
  EXPECT_GT(open, 1000u);  // inside block graphs, across whole_steps and closings
}

TEST(StateTree, ALevelTakesFromTheFrontAndForgetsWhatWasExpanded) {
  Level l;
  std::vector<size_t> slab_bytes;
  const int sizes[] = {5, 8, 5};
  for (int s = 0; s < 3; ++s) {
    NodeSlab slab;
    for (int i = 0; i < sizes[s]; ++i) slab.nodes.push_back({static_cast<uint32_t>(10 * s + i), 0, 0});
    slab_bytes.push_back(slab.bytes());
    l.add(std::move(slab));
  }
  EXPECT_EQ(l.bytes(), slab_bytes[0] + slab_bytes[1] + slab_bytes[2]);
  std::vector<NodeId> ids;
  l.peek_front(7, ids);
  ASSERT_EQ(ids.size(), 7u);
  std::vector<uint32_t> parents;
  for (NodeId id : ids) parents.push_back(l.node(id).parent);
  EXPECT_EQ(parents, (std::vector<uint32_t>{0, 1, 2, 3, 4, 10, 11}));
  l.drop_front(7);
  EXPECT_EQ(l.pending(), 11u);
  l.slab(1).saved = 5;  // as if written to a checkpoint
  l.slab(2).saved = 6;
  std::vector<NodeSlab> spare;
  l.drop_expanded(spare);
  EXPECT_EQ(spare.size(), 1u);  // the first slab, all expanded
  // The slab cut at its front keeps its buffer (to be reused), so its bytes still count; it is no
  // longer what the checkpoint wrote, the one after it still is.
  EXPECT_EQ(l.bytes(), slab_bytes[1] + slab_bytes[2]);
  EXPECT_EQ(l.slab(0).saved, 0u);
  EXPECT_EQ(l.slab(1).saved, 6u);
  l.pending_ids(ids);
  ASSERT_EQ(ids.size(), 11u);
  EXPECT_EQ(l.node(ids.front()).parent, 12u);
  EXPECT_EQ(l.node(ids.back()).parent, 24u);
  NodeSlab more;
  more.nodes.push_back({99, 0, 0});
  const size_t more_bytes = more.bytes();
  l.add(std::move(more));  // a level that forgot its expanded nodes takes new ones
  EXPECT_EQ(l.pending(), 12u);
  EXPECT_EQ(l.bytes(), slab_bytes[1] + slab_bytes[2] + more_bytes);
}

// Batches taken from the front of a level of uneven slabs, some of it forgotten by drop_expanded, name
// the pending nodes in slab order, each once: read back through node(), the parents count up.
TEST(StateTree, BatchesFromTheFrontNameEachPendingNodeOnce) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    Level l;
    uint32_t total = 0;
    for (int s = 0, slabs = 1 + int(rng() % 6); s < slabs; ++s) {
      NodeSlab slab;
      for (int i = 0, n = 1 + int(rng() % 40); i < n; ++i) slab.nodes.push_back({total++, 0, 0});
      l.add(std::move(slab));
    }
    std::vector<NodeSlab> spare;
    uint32_t next = 0;  // the parent the first pending node names
    if (trial % 2) {  // forget the front of the level first
      next = rng() % total;
      l.drop_front(next);
      l.drop_expanded(spare);
      ASSERT_EQ(l.nodes(), total - next);
    }
    while (l.pending() > 0) {
      const size_t pending = l.pending(), n = 1 + rng() % 50;
      std::vector<NodeId> ids{kBase};  // peek_front appends
      l.peek_front(n, ids);
      ASSERT_EQ(ids.size(), 1 + std::min(n, pending));
      for (size_t k = 1; k < ids.size(); ++k) ASSERT_EQ(l.node(ids[k]).parent, next++) << "trial " << trial;
      l.drop_front(ids.size() - 1);
    }
    ASSERT_EQ(next, total);
  }
}

// A bfs chunk and a slab store each distinct opening once, however many children name it.
TEST(StateTree, EqualOpeningsAreStoredOnce) {
  const Program p = load_program("gqa_small");
  const SearchConfig cfg = test::config_for(p);
  expr::ExprPool pool;
  const Generator gen(p.graph, cfg, pool);
  std::vector<Step> steps, opens;
  PruneCounts pruned;
  gen.candidates(gen.root(), steps, pruned);
  for (const Step& st : steps)
    if (st.kind == Step::Kind::OpenBlock) opens.push_back(st);
  ASSERT_GT(opens.size(), 100u);  // past the first rebuilds of the index
  std::vector<Step> stored;
  std::vector<uint64_t> hashes;
  std::vector<uint32_t> slots;
  for (int round = 0; round < 2; ++round)
    for (uint32_t i = 0; i < opens.size(); ++i) {
      const uint32_t at = store_whole(stored, hashes, slots, opens[i], step_hash(opens[i]));
      EXPECT_EQ(at, i) << "round " << round;  // the root's whole_steps are all distinct
      EXPECT_EQ(step_hash(stored[at]), step_hash(opens[i]));
      EXPECT_EQ(hashes[at], step_hash(opens[i]));
    }
  EXPECT_EQ(stored.size(), opens.size());
  EXPECT_EQ(hashes.size(), opens.size());
  slots.clear();  // as a sealed slab's index is freed, its steps kept: rebuilt from their hashes
  EXPECT_EQ(store_whole(stored, hashes, slots, opens.back(), step_hash(opens.back())), opens.size() - 1);
  EXPECT_EQ(stored.size(), opens.size());
}

// A checkpoint's slab comes back as it was written: an empty one, one of bases alone (each base is a
// node) and one with children; bytes cut anywhere short are refused.
TEST(StateTree, ASlabComesBackFromItsBytes) {
  const Program p = load_program("gqa_small");
  const SearchConfig cfg = test::config_for(p);
  expr::ExprPool pool;
  const Generator gen(p.graph, cfg, pool);
  const Bytes root = encoded(gen.root());
  std::vector<Step> steps;
  PruneCounts pruned;
  gen.candidates(gen.root(), steps, pruned);
  ASSERT_FALSE(steps.empty());
  for (const int filled : {0, 1, 2}) {
    NodeSlab slab;
    if (filled >= 1) slab.push_base(root.data(), root.size(), 42);
    if (filled >= 2)
      for (const Step& st : steps) slab.push_child(NodeId{0}, st);
    slab.seal();
    std::vector<uint8_t> bytes;
    encode_slab(slab, bytes);
    NodeSlab back;
    ASSERT_TRUE(decode_slab(bytes, back)) << "filled " << filled;
    ASSERT_EQ(back.nodes.size(), slab.nodes.size());
    EXPECT_EQ(back.whole_steps.size(), slab.whole_steps.size());
    EXPECT_EQ(back.whole_hashes, slab.whole_hashes);  // not written: taken again from the steps
    EXPECT_EQ(back.base_keys, slab.base_keys);
    if (filled >= 1) {
      State state;
      back.bases.decode_at(0, state);
      EXPECT_EQ(encoded(state), root);
    }
    for (size_t cut = 0; cut < bytes.size(); cut += 7)
      EXPECT_FALSE(decode_slab(std::span(bytes.data(), cut), back)) << "filled " << filled << ", cut at " << cut;
  }
}

// What the structural dedup guards against, checked where it cannot be: in one process children carry
// no keys (a key is the path, so equal keys would be one state offering one step twice). The states
// of a few spaces' first levels (each level thinned to a few thousand, evenly) offer children that
// are pairwise distinct.
TEST(StateTree, NoStateOffersTheSameChildTwice) {
  std::vector<std::pair<std::string, SearchConfig>> spaces;
  for (const char* name : {"rmsnorm_linear_small", "ntrans_small"})
    spaces.emplace_back(name, test::config_for(load_program(name)));
  for (const char* name : {"gqa_small", "lora_small"}) {
    const Program p = load_program(name);
    SearchConfig mirage = space_config(p, Space::Mirage);
    resolve(mirage, p.graph);
    spaces.emplace_back(std::string(name) + " mirage", mirage);
    mirage.symbolic = 1;
    spaces.emplace_back(std::string(name) + " mirage symbolic", mirage);
  }
  constexpr size_t kKept = 1000;
  for (const auto& [name, cfg] : spaces) {
    SCOPED_TRACE(name);
    const Program p = load_program(name.substr(0, name.find(' ')));
    expr::ExprPool pool;
    const Generator gen(p.graph, cfg, pool);
    std::vector<State> level{gen.root()};
    std::vector<Step> steps;
    PruneCounts pruned;
    Bytes bytes;
    size_t children = 0;
    for (int depth = 0; depth < 12 && !level.empty(); ++depth) {
      std::vector<State> next;
      size_t stride = 1, seen = 0;
      for (const State& s : level) {
        steps.clear();
        gen.candidates(s, steps, pruned);
        std::set<std::string> distinct;
        for (const Step& st : steps) {
          const State child = gen.apply(s, st);
          bytes.clear();
          encode(child, bytes);
          ASSERT_TRUE(distinct.emplace(bytes.begin(), bytes.end()).second) << "depth " << depth;
          if (seen++ % stride) continue;
          next.push_back(child);
          if (next.size() == 2 * kKept) {  // every other one goes, and from now on one in twice as many
            for (size_t i = 0; i < kKept; ++i) next[i] = std::move(next[2 * i]);
            next.resize(kKept);
            stride *= 2;
          }
        }
        children += steps.size();
      }
      level = std::move(next);
    }
    EXPECT_GT(children, 10000u);
  }
}

}  // namespace
}  // namespace ugs::search_detail
