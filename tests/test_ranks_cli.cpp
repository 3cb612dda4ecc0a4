// dfs-mpi and bfs over MPI ranks through the real binary under mpirun: the μGraphs of dfs at 1, 2 and
// 3 ranks with per-rank statistics (bfs also with its completions through the feed thread); a killed
// rank fails the whole run (non-zero, no results file) and --resume completes it; a bad input on one
// rank fails every rank; refusals with exit 2.
// test_ranks_slow runs every _small preset and the z3 sharing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "ranks_util.h"

namespace ugs {
namespace {

using nlohmann::json;

std::string dfs_results(const std::string& program, const std::string& dir) {
  const std::string out = dir + "/dfs.json";
  EXPECT_EQ(test::run_ugsearch({"search", program, "--quiet", "--out", out}).status, 0);
  return out;
}

// The checkpoint generation a distributed bfs has completed (its manifest), or -1.
int generation(const std::string& dir) {
  const std::string path = dir + "/manifest.json";
  if (!std::filesystem::exists(path)) return -1;
  const json m = json::parse(read_file(path), nullptr, false);
  return m.is_discarded() ? -1 : m["generation"].get<int>();
}

// Waits for mpirun, killing it after `limit` (the test then fails).
int wait_for(pid_t mpirun, std::chrono::seconds limit = std::chrono::seconds(120)) {
  int status = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (waitpid(mpirun, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() - t0 > limit) kill(mpirun, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return status;
}

TEST(RanksCli, DfsMpiAndBfsFindWhatDfsFindsAtOneTwoAndThreeRanks) {
  const std::string dir = test::temp_dir();
  const std::string base = dfs_results("lora_small", dir);
  const json ref = json::parse(read_file(base));
  // bfs-batched: completions through the feed thread, as with cuda or a full-size program on the CPU.
  const std::string batched = dir + "/batched.json";
  write_file_atomic(batched, R"({"bfs_batch_verify": 1})");
  struct Run {
    std::string name, strategy;
    std::vector<std::string> extra;
  };
  const std::vector<Run> runs = {
      {"dfs-mpi", "dfs-mpi", {}}, {"bfs", "bfs", {}}, {"bfs-batched", "bfs", {"--config", batched}}};
  for (const Run& run : runs)
    for (int ranks : {1, 2, 3}) {
      SCOPED_TRACE(run.name + " x" + std::to_string(ranks));
      const std::string out = dir + "/" + run.name + std::to_string(ranks) + ".json";
      const std::string threads = ranks == 2 ? "2" : "1";
      std::vector<std::string> args = {"search",  "lora_small", "--strategy", run.strategy, "--threads",
                                       threads,   "--quiet",    "--out",      out};
      args.insert(args.end(), run.extra.begin(), run.extra.end());
      const test::RunResult r = test::run_ranks(ranks, args);
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_EQ(test::result_hashes(out), test::result_hashes(base));
      const json doc = json::parse(read_file(out));
      EXPECT_EQ(doc["run"]["ranks"], ranks);
      EXPECT_EQ(doc["stats"]["states_expanded"], ref["stats"]["states_expanded"]);
      EXPECT_EQ(doc["stats"]["duplicates"], 0);
      // Under mpirun bfs takes the fixed default limit (every rank the same; none of dfs-mpi's).
      EXPECT_EQ(doc["run"]["memory_limit_mib"], run.strategy == "bfs" ? 128 : 0);
      if (ranks == 1) continue;
      const json& rows = doc["stats"]["ranks"];
      ASSERT_EQ(rows.size(), size_t(ranks));
      uint64_t states = 0, items = 0;
      for (const json& row : rows) {
        states += row["states"].get<uint64_t>();
        items += row["items"].get<uint64_t>();
        EXPECT_GT(row["items"].get<uint64_t>(), 0u) << "every rank got work";
        EXPECT_GT(row["bytes_sent"].get<uint64_t>(), 0u);
      }
      EXPECT_EQ(states, doc["stats"]["states_expanded"].get<uint64_t>());
      if (run.strategy == "bfs") {
        EXPECT_GT(doc["stats"]["levels"][2]["bytes"].get<uint64_t>(), 0u);
        // The first depths are spread over the ranks; past them children stay with their parents.
        EXPECT_LT(items * 10, states) << "states routed, of " << states;
      }
    }
}

// --objective best over ranks: each rank cuts by the lowest limit any rank has told it of, and rank 0
// keeps what is within the factor of every rank's best: the complete run's cheapest μGraphs.
TEST(RanksCli, ObjectiveBestOverRanksKeepsTheCheapestOfTheCompleteRun) {
  const std::string dir = test::temp_dir();
  const json all = json::parse(read_file(dfs_results("lora_small", dir)));
  ASSERT_FALSE(all["mugraphs"].empty());
  const double best = all["mugraphs"][0]["cost"]["estimated_us"].get<double>();
  std::set<std::string> expected;
  for (const json& m : all["mugraphs"])
    if (m["cost"]["estimated_us"].get<double>() <= best * 1.1 * (1 + 1e-9)) expected.insert(m["hash"].get<std::string>());
  for (const std::string strategy : {"dfs-mpi", "bfs"}) {
    SCOPED_TRACE(strategy);
    const std::string out = dir + "/" + strategy + "_best.json";
    const test::RunResult r = test::run_ranks(2, {"search", "lora_small", "--strategy", strategy, "--objective", "best",
                                                  "--within", "1.1", "--quiet", "--out", out});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(test::result_hashes(out), expected);
    EXPECT_EQ(json::parse(read_file(out))["run"]["objective"], "best");
  }
}

TEST(RanksCli, AKilledBfsRankFailsTheRunAndResumeCompletesIt) {
  const std::string dir = test::temp_dir();
  const std::vector<std::string> args = {"search", "qknorm_gqa_small", "--strategy", "bfs", "--quiet", "--checkpoint",
                                         dir + "/ck", "--checkpoint-share", "1", "--out", dir + "/killed.json"};
  const pid_t mpirun = test::spawn_ranks(3, args);
  const auto t0 = std::chrono::steady_clock::now();
  while (generation(dir + "/ck") < 3 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::vector<pid_t> ranks = test::children_of(mpirun);
  ASSERT_EQ(ranks.size(), 3u) << "the run ended before the kill: make the space bigger";
  kill(ranks[1], SIGKILL);
  const int status = wait_for(mpirun);
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a killed rank must fail the run";
  EXPECT_FALSE(std::filesystem::exists(dir + "/killed.json"));

  const test::RunResult resumed = test::run_ranks(3, {"search", "qknorm_gqa_small", "--strategy", "bfs", "--quiet",
                                                      "--resume", dir + "/ck", "--out", dir + "/r.json"});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_EQ(test::result_hashes(dir + "/r.json"), test::result_hashes(dfs_results("qknorm_gqa_small", dir)));
}

TEST(RanksCli, AKilledDfsMpiRankFailsTheRun) {
  const std::string dir = test::temp_dir();
  const pid_t mpirun = test::spawn_ranks(
      3, {"search", "gqa_small", "--strategy", "dfs-mpi", "--quiet", "--out", dir + "/killed.json"});  // long
  const auto t0 = std::chrono::steady_clock::now();
  while (test::children_of(mpirun).size() < 3 && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // MPI is up, the ranks are searching
  const std::vector<pid_t> ranks = test::children_of(mpirun);
  ASSERT_EQ(ranks.size(), 3u) << "the run ended before the kill: make the space bigger";
  kill(ranks[2], SIGKILL);
  const int status = wait_for(mpirun);
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a killed rank must fail the run";
  EXPECT_FALSE(std::filesystem::exists(dir + "/killed.json"));
}

// A checkpoint rank 1 cannot read fails every rank (MPI_Abort, exit 2), and a resume with another rank
// count is refused before any search.
TEST(RanksCli, ABadInputOnOneRankFailsEveryRank) {
  const std::string dir = test::temp_dir();
  auto bfs = [&](int ranks, const std::string& flag) {
    return test::run_ranks(ranks, {"search", "lora_small", "--strategy", "bfs", "--quiet", flag, dir + "/ck", "--out",
                                   dir + "/r" + std::to_string(ranks) + ".json"});
  };
  ASSERT_EQ(bfs(2, "--checkpoint").status, 0);
  const test::RunResult other = bfs(3, "--resume");
  EXPECT_EQ(other.status, 2);
  EXPECT_NE(other.err.find("resume it with mpirun -np 2"), std::string::npos) << other.err;
  const test::RunResult alone = test::run_ugsearch(
      {"search", "lora_small", "--strategy", "bfs", "--resume", dir + "/ck", "--out", dir + "/x.json"});
  EXPECT_EQ(alone.status, 2);
  EXPECT_NE(alone.err.find("over 2 rank(s)"), std::string::npos) << alone.err;

  for (const auto& f : std::filesystem::directory_iterator(dir + "/ck"))
    if (f.path().filename().string().starts_with("checkpoint.rank1.")) std::filesystem::remove(f.path());
  std::filesystem::remove(dir + "/r2.json");
  const test::RunResult broken = bfs(2, "--resume");
  EXPECT_EQ(broken.status, 2);
  EXPECT_NE(broken.err.find("rank 1: "), std::string::npos) << broken.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/r2.json"));
}

TEST(RanksCli, OneProcessStrategiesAreRefusedOverRanks) {
  const test::RunResult r = test::run_ranks(2, {"search", "lora_small", "--strategy", "dfs-omp", "--quiet"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("over ranks use dfs-mpi or bfs"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ugs
