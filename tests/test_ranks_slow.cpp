// The distributed strategies on every built-in _small preset, through mpirun: dfs-mpi and bfs at 1, 2
// and 3 ranks return exactly dfs's μGraphs, and z3 answers each query once over all ranks. Slow:
// gqa_small alone takes about four minutes on two cores.
#include <gtest/gtest.h>

#include <fstream>

#include "ranks_util.h"

namespace ugs {
namespace {

using nlohmann::json;

const char* const kSmall[] = {"rmsnorm_linear_small", "gated_mlp_small", "lora_small", "gqa_small",
                              "mha_small", "mqa_small", "qknorm_gqa_small", "ntrans_small"};

class RankedPreset : public testing::TestWithParam<const char*> {};

TEST_P(RankedPreset, DfsMpiAndBfsFindWhatDfsFinds) {
  const std::string program = GetParam(), dir = test::temp_dir();
  ASSERT_EQ(test::run_ugsearch({"search", program, "--quiet", "--out", dir + "/dfs.json"}).status, 0);
  const std::set<std::string> want = test::result_hashes(dir + "/dfs.json");
  for (const char* strategy : {"dfs-mpi", "bfs"})
    for (int n : {1, 2, 3}) {
      SCOPED_TRACE(std::string(strategy) + " x" + std::to_string(n));
      const std::string out = dir + "/" + strategy + std::to_string(n) + ".json";
      const test::RunResult r =
          test::run_ranks(n, {"search", program, "--strategy", strategy, "--quiet", "--out", out});
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_EQ(test::result_hashes(out), want);
      EXPECT_EQ(json::parse(read_file(out))["stats"]["duplicates"], 0);
    }
}

INSTANTIATE_TEST_SUITE_P(Small, RankedPreset, testing::ValuesIn(kSmall));

// With the structural stage off every query the cache does not answer goes to z3 (about 160 distinct
// ones in this narrowed gated_mlp_small space, ten seconds of z3 on one core). bfs solves each
// distinct query once over the ranks, so its total is exactly one process's; dfs-mpi shares answers
// as they come (every chunk request, and every 20 ms), within 1.5 times one process's.
TEST(RankedZ3, QueriesAreSolvedOnceOverTheRanks) {
  const std::string dir = test::temp_dir();
  std::ofstream(dir + "/cfg.json") << R"({"oracle_structural": 0, "max_kernel_ops": 4, "max_block_ops": 6})";
  auto z3_calls = [&](const char* strategy, int ranks) {
    const std::string out = dir + "/" + strategy + std::to_string(ranks) + ".json";
    const test::RunResult r = test::run_ranks(ranks, {"search", "gated_mlp_small", "--strategy", strategy, "--config",
                                                      dir + "/cfg.json", "--quiet", "--out", out});
    EXPECT_EQ(r.status, 0) << r.err;
    const json s = json::parse(read_file(out))["stats"];
    uint64_t per_rank = 0;
    for (const json& row : s["ranks"]) per_rank += row["z3_calls"].get<uint64_t>();
    if (ranks > 1) {
      EXPECT_EQ(per_rank, s["expr"]["z3_calls"].get<uint64_t>());
    }
    const json& e = s["expr"];
    EXPECT_EQ(e["queries"].get<uint64_t>(), e["cache_hits"].get<uint64_t>() + e["structural"].get<uint64_t>() +
                                                e["z3_calls"].get<uint64_t>());
    return e["z3_calls"].get<uint64_t>();
  };
  const uint64_t one = z3_calls("bfs", 1);
  ASSERT_GT(one, 50u) << "the space should make z3 work";
  EXPECT_LE(z3_calls("bfs", 3), one);
  const uint64_t dfs_one = z3_calls("dfs-mpi", 1);
  EXPECT_EQ(dfs_one, one);  // the same distinct queries
  EXPECT_LE(double(z3_calls("dfs-mpi", 3)), 1.5 * double(dfs_one));
}

}  // namespace
}  // namespace ugs
