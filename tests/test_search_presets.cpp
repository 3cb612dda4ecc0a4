// The built-in presets searched completely, as issues 4 and 5 ask: for every _small program the three
// depth-first strategies and bfs at 1 and 2 threads return one set of μGraph hashes, nothing twice, the
// known μGraphs of DESIGN §7 among them (test_search checks that runs repeat). Slow: gqa_small takes
// about five minutes, the others seconds.
#include <gtest/gtest.h>

#include <set>

#include "test_util.h"
#include "ugs/ir/canonical.h"
#include "ugs/search/search.h"

namespace ugs {
namespace {

const char* const kSmall[] = {"rmsnorm_linear_small", "gated_mlp_small", "lora_small", "gqa_small",
                              "mha_small", "mqa_small", "qknorm_gqa_small", "ntrans_small"};

// In result order (best first): equal vectors mean equal sets in equal order.
std::vector<uint64_t> hashes(const SearchResult& r) {
  std::vector<uint64_t> h;
  for (const FoundGraph& f : r.mugraphs) h.push_back(f.hash);
  return h;
}

class Preset : public testing::TestWithParam<const char*> {};

TEST_P(Preset, StrategiesAgreeAndTheKnownGraphIsFound) {
  const Program p = load_program(GetParam());
  SearchConfig cfg;
  ASSERT_FALSE(p.search_preset.is_null()) << "a built-in _small program carries its preset";
  apply_config_json(cfg, p.search_preset, p.name);
  resolve(cfg, p.graph);
  auto run = [&](Strategy s, int threads) {
    RunOptions opt;
    opt.strategy = s;
    opt.threads = threads;
    return run_search(p.graph, cfg, opt);
  };
  const SearchResult base = run(Strategy::Dfs, 1);
  EXPECT_EQ(base.duplicates, 0u);
  EXPECT_EQ(base.totals.confirm_failures, 0u);
  for (const auto& [program, ref] : test::kSearchReferences)
    if (p.name == program) {
      const std::vector<uint64_t> h = hashes(base);
      EXPECT_TRUE(std::count(h.begin(), h.end(), structural_hash(test::reference(ref))))
          << "the hand-written reference μGraph is not among the " << h.size() << " found";
    }
  for (size_t i = 1; i < base.mugraphs.size(); ++i)
    EXPECT_FALSE(ranks_before(base.mugraphs[i].cost, base.mugraphs[i].hash, base.mugraphs[i - 1].cost,
                              base.mugraphs[i - 1].hash));
  for (Strategy s : {Strategy::Dfs, Strategy::DfsStatic, Strategy::DfsOmp, Strategy::Bfs})
    for (int threads : {1, 2}) {
      if (s == Strategy::Dfs && threads == 1) continue;
      SCOPED_TRACE(std::string(name_of(s)) + " x" + std::to_string(threads));
      const SearchResult r = run(s, threads);
      EXPECT_EQ(hashes(r), hashes(base));
      EXPECT_EQ(r.duplicates, 0u);
      EXPECT_EQ(r.totals.states, base.totals.states);
    }
}

INSTANTIATE_TEST_SUITE_P(Small, Preset, testing::ValuesIn(kSmall));

}  // namespace
}  // namespace ugs
