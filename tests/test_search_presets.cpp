// The built-in presets searched completely: for every _small program the three depth-first strategies
// and bfs at 1 and 2 threads, and with symbolic openings dfs and bfs, return one set of μGraph hashes,
// nothing twice, the known μGraphs of docs/design.md §7 among them (test_search checks that runs repeat). Slow: gqa_small takes
// about five minutes, the others seconds. Every full-size preset but qknorm_gqa's is searched once
// (bfs, 2 threads), so that none of them comes back empty-handed: gqa takes about a minute on 2 cores,
// the others seconds. qknorm_gqa's takes 3 to 6 minutes and 7 GiB, past what the suite can spend;
// Generator.EveryReferenceIsInItsPresetsSpace walks its reference through the generator and the
// oracle instead, and test_references_full verifies that reference. Every _small program's mirage
// space is searched completely too, by every strategy (MirageSpace, MirageSpaceLarger).
#include <gtest/gtest.h>

#include <set>

#include "test_util.h"
#include "ugs/io/spaces.h"
#include "ugs/ir/canonical.h"
#include "ugs/search/search.h"

namespace ugs {
namespace {

const char* const kSmall[] = {"rmsnorm_linear_small", "gated_mlp_small", "lora_small", "gqa_small",
                              "mha_small", "mqa_small", "qknorm_gqa_small", "ntrans_small"};
const char* const kFull[] = {"rmsnorm_linear", "gated_mlp", "lora", "gqa", "mha", "mqa", "ntrans"};

// In result order (best first): equal vectors mean equal sets in equal order.
std::vector<uint64_t> hashes(const SearchResult& result) {
  std::vector<uint64_t> h;
  for (const FoundGraph& f : result.mugraphs) h.push_back(f.hash);
  return h;
}

// A built-in program's preset searched (the caller has checked that there is one).
SearchResult run_preset(const Program& p, Strategy s, int threads, bool symbolic = false, bool lookahead = true) {
  SearchConfig cfg;
  apply_config_json(cfg, p.search_preset, p.name);
  cfg.symbolic = symbolic;
  cfg.closing_lookahead = lookahead;
  resolve(cfg, p.graph);
  RunOptions opt;
  opt.strategy = s;
  opt.threads = threads;
  return run_search(p.graph, cfg, opt);
}

// The presets without a hand-written reference, with the number of μGraphs their search finds: a
// search that finds nothing (or a generator change that alters the space) fails here. Change a count
// only with the change that explains it.
const std::pair<const char*, size_t> kFoundCounts[] = {
    {"mha_small", 22}, {"mqa_small", 18}, {"qknorm_gqa_small", 4}, {"ntrans_small", 75},
    {"mha", 6},        {"mqa", 3},        {"ntrans", 30}};

// Nothing found twice, no confirmation failed, and the program's hand-written reference among the finds
// (or, without one, as many μGraphs as kFoundCounts says).
void expect_sound_with_reference(const Program& p, const SearchResult& result) {
  EXPECT_EQ(result.duplicates, 0u);
  EXPECT_EQ(result.totals.confirm_failures, 0u);
  for (const auto& [program, count] : kFoundCounts)
    if (p.name == program) {
      EXPECT_EQ(result.mugraphs.size(), count);
    }
  for (const auto& [program, ref] : test::kSearchReferences)
    if (p.name == program) {
      const std::vector<uint64_t> h = hashes(result);
      EXPECT_TRUE(std::count(h.begin(), h.end(), structural_hash(test::reference(ref))))
          << "the hand-written reference μGraph " << ref << " is not among the " << h.size() << " found";
    }
}

class Preset : public testing::TestWithParam<const char*> {};

TEST_P(Preset, StrategiesAgreeAndTheKnownGraphIsFound) {
  const Program p = load_program(GetParam());
  ASSERT_FALSE(p.search_preset.is_null()) << "a built-in program carries its preset";
  const SearchResult base = run_preset(p, Strategy::Dfs, 1);
  expect_sound_with_reference(p, base);
  for (size_t i = 1; i < base.mugraphs.size(); ++i)
    EXPECT_FALSE(ranks_before(base.mugraphs[i].cost, base.mugraphs[i].hash, base.mugraphs[i - 1].cost,
                              base.mugraphs[i - 1].hash));
  for (Strategy s : {Strategy::Dfs, Strategy::DfsStatic, Strategy::DfsOmp, Strategy::Bfs})
    for (int threads : {1, 2}) {
      if (s == Strategy::Dfs && threads == 1) continue;
      SCOPED_TRACE(std::string(name_of(s)) + " x" + std::to_string(threads));
      const SearchResult result = run_preset(p, s, threads);
      EXPECT_EQ(hashes(result), hashes(base));
      EXPECT_EQ(result.duplicates, 0u);
      EXPECT_EQ(result.totals.states, base.totals.states);
    }
  // Symbolic, with the closing lookahead and without: no more states than the concrete search the
  // same way (a symbolic state stands for one concrete state or more), fewer where an opening has
  // launches to share.
  const SearchResult concrete = run_preset(p, Strategy::Dfs, 1, false, false);
  EXPECT_EQ(hashes(concrete), hashes(base));
  for (bool lookahead : {true, false})
    for (Strategy s : {Strategy::Dfs, Strategy::Bfs}) {
      SCOPED_TRACE(std::string("symbolic ") + std::string(name_of(s)) + (lookahead ? " lookahead" : ""));
      const SearchResult result = run_preset(p, s, s == Strategy::Dfs ? 1 : 2, true, lookahead);
      EXPECT_EQ(hashes(result), hashes(base));
      EXPECT_LE(result.totals.states, (lookahead ? base : concrete).totals.states);
    }
}

INSTANTIATE_TEST_SUITE_P(Small, Preset, testing::ValuesIn(kSmall));

// The full-size presets narrow grids and loop ranges to what the known μGraphs need at full size,
// where the tiles must fit shared memory (scaling the _small ones' lists left gqa and mqa with none).
class FullPreset : public testing::TestWithParam<const char*> {};

TEST_P(FullPreset, FindsItsKnownGraphs) {
  const Program p = load_program(GetParam());
  ASSERT_FALSE(p.search_preset.is_null()) << "a built-in program carries its preset";
  const SearchResult result = run_preset(p, Strategy::Bfs, 2);
  EXPECT_FALSE(result.partial);
  EXPECT_FALSE(result.mugraphs.empty()) << "the preset's space holds no μGraph of " << p.name;
  expect_sound_with_reference(p, result);
}

INSTANTIATE_TEST_SUITE_P(Full, FullPreset, testing::ValuesIn(kFull));

// A program's mirage space (--space mirage), resolved for it.
SearchConfig mirage_config(const Program& p) {
  SearchConfig cfg = space_config(p, Space::Mirage);
  resolve(cfg, p.graph);
  return cfg;
}

// A search of cfg with s: dfs on 1 thread, the others on 2.
SearchResult run_with(const Program& p, const SearchConfig& cfg, Strategy s) {
  RunOptions opt;
  opt.strategy = s;
  opt.threads = s == Strategy::Dfs ? 1 : 2;
  return run_search(p.graph, cfg, opt);
}

// Mirage's space of a _small program: every strategy returns one set of μGraph hashes over the same
// states, with the reference among them where there is one. Returns the set and the states.
std::pair<std::vector<uint64_t>, uint64_t> expect_strategies_agree(const Program& p, const SearchConfig& cfg) {
  std::vector<uint64_t> base;
  uint64_t states = 0;
  for (Strategy s : {Strategy::Dfs, Strategy::DfsStatic, Strategy::DfsOmp, Strategy::Bfs}) {
    SCOPED_TRACE(name_of(s));
    const SearchResult result = run_with(p, cfg, s);
    EXPECT_FALSE(result.partial);
    EXPECT_EQ(result.duplicates, 0u);
    EXPECT_EQ(result.totals.confirm_failures, 0u);
    if (s == Strategy::Dfs) {
      base = hashes(result);
      states = result.totals.states;
      for (const auto& [program, ref] : test::kMirageReferences)
        if (p.name == program) {
          EXPECT_TRUE(std::count(base.begin(), base.end(), structural_hash(test::reference(ref)))) << ref;
        }
      continue;
    }
    EXPECT_EQ(hashes(result), base);
    EXPECT_EQ(result.totals.states, states);
  }
  return {base, states};
}

// The _small programs whose mirage search takes seconds, with symbolic openings too: the same set from
// fewer states, with the closing lookahead (its cut made launch by launch before an opening gathers
// them) and without. mqa_small's holds no μGraph: its batch is 1, so of Mirage's attention imaps (each
// maps grid x to the batch) only (-1, 1, -1) applies, and Mirage has no kernel-level reduction for the
// softmax's sum.
class MirageSpace : public testing::TestWithParam<const char*> {};

TEST_P(MirageSpace, StrategiesAgree) {
  const Program p = load_program(GetParam());
  SearchConfig cfg = mirage_config(p);
  const auto [base, with_lookahead] = expect_strategies_agree(p, cfg);
  cfg.closing_lookahead = 0;
  const SearchResult concrete = run_with(p, cfg, Strategy::Dfs);
  EXPECT_EQ(hashes(concrete), base);
  cfg.symbolic = 1;
  for (int lookahead : {1, 0})
    for (Strategy s : {Strategy::Dfs, Strategy::Bfs}) {
      SCOPED_TRACE(std::string("symbolic ") + std::string(name_of(s)) + (lookahead ? " lookahead" : ""));
      cfg.closing_lookahead = lookahead;
      const SearchResult result = run_with(p, cfg, s);
      EXPECT_EQ(hashes(result), base);
      EXPECT_LT(result.totals.states, lookahead ? with_lookahead : concrete.totals.states);
      EXPECT_GT(result.totals.symbolic_states, 0u);
    }
}

// The other _small programs, whose mirage searches take seconds to a minute a strategy (the whole of
// qknorm_gqa_small's test, minutes): the strategies, and bfs with symbolic openings, which alone of
// the variants above stays within the suite's budget here (without the closing lookahead the
// attention searches take many times longer).
class MirageSpaceLarger : public testing::TestWithParam<const char*> {};

TEST_P(MirageSpaceLarger, StrategiesAgree) {
  const Program p = load_program(GetParam());
  SearchConfig cfg = mirage_config(p);
  const auto [base, states] = expect_strategies_agree(p, cfg);
  ASSERT_FALSE(base.empty());
  cfg.symbolic = 1;
  const SearchResult result = run_with(p, cfg, Strategy::Bfs);
  EXPECT_EQ(hashes(result), base);
  EXPECT_LE(result.totals.states, states);
  EXPECT_GT(result.totals.symbolic_states, 0u);
}

// The abstract-expression check prunes nothing it should keep: every μGraph found with it is found
// without it (config key expr_check 0, where every step is kept), with and without symbolic openings.
TEST(ExprCheck, EveryMugraphFoundWithItIsFoundWithoutIt) {
  const Program p = load_program("rmsnorm_linear_small");
  SearchConfig cfg;
  apply_config_json(cfg, p.search_preset, p.name);
  apply_config_json(cfg, nlohmann::json::parse(R"({"grids": [[6, 1, 1], [12, 1, 1]], "loop_ranges": [1, 4],
      "max_kernel_ops": 3, "max_block_ops": 6})"), "test");
  resolve(cfg, p.graph);
  RunOptions opt;
  opt.strategy = Strategy::Bfs;
  opt.threads = 2;
  for (int symbolic : {0, 1}) {
    SCOPED_TRACE(symbolic ? "symbolic" : "concrete");
    cfg.symbolic = symbolic;
    cfg.expr_check = 1;
    const SearchResult on = run_search(p.graph, cfg, opt);
    cfg.expr_check = 0;
    const SearchResult off = run_search(p.graph, cfg, opt);
    ASSERT_FALSE(on.mugraphs.empty());
    EXPECT_GT(off.totals.states, 10 * on.totals.states);
    EXPECT_EQ(off.totals.pruned.expr, 0u);
    EXPECT_EQ(off.expr.undecided, off.expr.queries - off.expr.cache_hits);
    const std::vector<uint64_t> without = hashes(off);
    for (uint64_t h : hashes(on)) EXPECT_TRUE(std::count(without.begin(), without.end(), h)) << std::hex << h;
  }
}

INSTANTIATE_TEST_SUITE_P(Small, MirageSpace,
                         testing::Values("rmsnorm_linear_small", "gated_mlp_small", "ntrans_small", "mqa_small"));
INSTANTIATE_TEST_SUITE_P(Small, MirageSpaceLarger,
                         testing::Values("lora_small", "gqa_small", "mha_small", "qknorm_gqa_small"));

}  // namespace
}  // namespace ugs
