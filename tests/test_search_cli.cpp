// `ugsearch search`: the results file of docs/design.md §9, --time-limit (exit 3, a partial file whose μGraphs
// are a subset of the full run's), SIGTERM (exit 143, a partial file), --quiet, and bad configs
// rejected with exit 2.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "test_util.h"

namespace ugs {
namespace {

using nlohmann::json;

std::set<std::string> hashes(const json& results) {
  std::set<std::string> h;
  for (const json& m : results["mugraphs"]) h.insert(m["hash"].get<std::string>());
  return h;
}

TEST(SearchCli, WritesTheResultsFile) {
  const std::string out = test::temp_dir() + "/r.json";
  const test::RunResult r = test::run_ugsearch({"search", "rmsnorm_linear_small", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("μGraphs in"), std::string::npos);
  const json doc = json::parse(read_file(out));
  for (const char* key : {"run", "program", "config", "mugraphs", "stats"}) EXPECT_TRUE(doc.contains(key)) << key;
  EXPECT_EQ(doc["run"]["strategy"], "dfs");
  EXPECT_EQ(doc["run"]["partial"], false);
  // The device is named when the run used one (auto: only where there is one).
  EXPECT_EQ(doc["run"]["device"] == "", doc["run"]["backend"] == "cpu") << doc["run"].dump();
  EXPECT_EQ(doc["config"]["max_block_ops"], 8);  // the program's preset
  EXPECT_TRUE(hashes(doc).count("f23aae002a3665be"));  // the reference μGraph
  EXPECT_EQ(doc["stats"]["duplicates"], 0);
  EXPECT_GT(doc["stats"]["states_expanded"].get<uint64_t>(), 0u);
  // The μGraphs come best first by the cost model; each carries its cost.
  double last = 0;
  for (const json& m : doc["mugraphs"]) {
    ASSERT_TRUE(m.contains("cost"));
    EXPECT_GE(m["cost"]["estimated_us"].get<double>(), last);
    last = m["cost"]["estimated_us"].get<double>();
  }
  EXPECT_FALSE(std::filesystem::exists(out + ".tmp"));
}

// --space: the run records its space; mirage lists what the model cannot express; a preset space
// for a program without one, or a config that empties the space, is refused with one line, exit 2.
TEST(SearchCli, SpacesAreNamedRecordedAndRefusedWhenEmpty) {
  const std::string dir = test::temp_dir();
  const test::RunResult preset = test::run_ugsearch({"search", "rmsnorm_linear_small", "--quiet", "--out", dir + "/p.json"});
  ASSERT_EQ(preset.status, 0) << preset.err;
  EXPECT_EQ(json::parse(read_file(dir + "/p.json"))["run"]["space"], "preset");
  const test::RunResult mirage = test::run_ugsearch(
      {"search", "rmsnorm_linear_small", "--space", "mirage", "--strategy", "bfs", "--threads", "2", "--quiet",
       "--out", dir + "/m.json"});
  ASSERT_EQ(mirage.status, 0) << mirage.err;
  const json doc = json::parse(read_file(dir + "/m.json"));
  EXPECT_EQ(doc["run"]["space"], "mirage");
  EXPECT_EQ(doc["config"]["space"], "mirage");
  EXPECT_EQ(doc["config"]["block_inputs"], "mirage");
  EXPECT_FALSE(doc["run"]["space_not_covered"].empty());
  EXPECT_TRUE(hashes(doc).count("f23aae002a3665be"));  // the reference μGraph: in Mirage's space too
  EXPECT_GE(doc["stats"]["time_to_best_s"].get<double>(), doc["stats"]["time_to_first_s"].get<double>());
  const std::string program = dir + "/plain.json";
  std::ofstream(program) << R"({"inputs": [{"name": "A", "shape": [4, 4]}],
      "ops": [{"name": "O", "op": "exp", "inputs": ["A"]}], "outputs": ["O"]})";
  const test::RunResult no_preset = test::run_ugsearch({"search", program, "--space", "preset", "--out", dir + "/x.json"});
  EXPECT_EQ(no_preset.status, 2);
  EXPECT_NE(no_preset.err.find("no \"search\" preset"), std::string::npos) << no_preset.err;
  std::ofstream(dir + "/empty.json") << R"({"loop_ranges": []})";
  const test::RunResult empty =
      test::run_ugsearch({"search", "rmsnorm_linear_small", "--config", dir + "/empty.json", "--out", dir + "/y.json"});
  EXPECT_EQ(empty.status, 2);
  EXPECT_NE(empty.err.find("loop_ranges"), std::string::npos) << empty.err;
  EXPECT_EQ(std::count(empty.err.begin(), empty.err.end(), '\n'), 1) << empty.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/y.json"));
  // The open space's limits leave lora_small no first step (its 4 inputs count against max_kernel_ops):
  // a complete, empty run, and one line saying which limits to raise.
  const test::RunResult closed =
      test::run_ugsearch({"search", "lora_small", "--space", "open", "--quiet", "--out", dir + "/z.json"});
  EXPECT_EQ(closed.status, 0) << closed.err;
  EXPECT_NE(closed.err.find("no step from the inputs"), std::string::npos) << closed.err;
  EXPECT_NE(closed.err.find("max_kernel_ops"), std::string::npos) << closed.err;
  EXPECT_EQ(std::count(closed.err.begin(), closed.err.end(), '\n'), 1) << closed.err;
  EXPECT_TRUE(json::parse(read_file(dir + "/z.json"))["mugraphs"].empty());
  EXPECT_TRUE(preset.err.empty()) << preset.err;  // a space with steps says nothing of the kind
}

// --objective best: the run records its objective and factor, keeps only μGraphs within the factor of
// the best, and counts the states the cost bound cut.
TEST(SearchCli, ObjectiveBestKeepsTheBestAndThoseWithinTheFactor) {
  const std::string out = test::temp_dir() + "/best.json";
  const test::RunResult r = test::run_ugsearch(
      {"search", "rmsnorm_linear_small", "--objective", "best", "--within", "1.2", "--quiet", "--out", out});
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = json::parse(read_file(out));
  EXPECT_EQ(doc["run"]["objective"], "best");
  EXPECT_EQ(doc["run"]["within"], 1.2);
  ASSERT_FALSE(doc["mugraphs"].empty());
  const double best = doc["mugraphs"][0]["cost"]["estimated_us"].get<double>();
  for (const json& m : doc["mugraphs"]) EXPECT_LE(m["cost"]["estimated_us"].get<double>(), best * 1.2 * (1 + 1e-9));
  EXPECT_TRUE(doc["stats"]["pruned"].contains("cost"));
}

TEST(SearchCli, TimeLimitExits3WithAPartialSubset) {
  const std::string dir = test::temp_dir();
  // Mirage's space of lora_small: a search of seconds, so that the limit stops it on any machine (its
  // preset takes a few tenths of a second, about the limit).
  const test::RunResult full =
      test::run_ugsearch({"search", "lora_small", "--space", "mirage", "--quiet", "--out", dir + "/full.json"});
  ASSERT_EQ(full.status, 0) << full.err;
  EXPECT_TRUE(full.out.empty());
  const test::RunResult cut =
      test::run_ugsearch({"search", "lora_small", "--space", "mirage", "--time-limit", "0.3", "--strategy", "dfs-omp",
                          "--threads", "2", "--out", dir + "/cut.json"});
  ASSERT_EQ(cut.status, 3) << cut.err;
  EXPECT_NE(cut.out.find("stopped by --time-limit"), std::string::npos);
  const json a = json::parse(read_file(dir + "/full.json")), b = json::parse(read_file(dir + "/cut.json"));
  EXPECT_EQ(b["run"]["partial"], true);
  EXPECT_EQ(b["run"]["stopped_by"], "time_limit");
  EXPECT_EQ(a["run"]["stopped_by"], nullptr);
  EXPECT_LT(b["stats"]["states_expanded"].get<uint64_t>(), a["stats"]["states_expanded"].get<uint64_t>());
  for (const std::string& h : hashes(b)) EXPECT_TRUE(hashes(a).count(h)) << h;
}

// SIGTERM (as a batch scheduler sends) stops a depth-first search as --time-limit does: exit 143, the
// results so far written, marked partial and naming the signal. gqa_small's search in Mirage's space
// takes seconds (its preset's, under half of one, could end before the signal).
TEST(SearchCli, SigtermExits143WithPartialResults) {
  const std::string dir = test::temp_dir();
  const pid_t pid = test::spawn_ugsearch(
      {"search", "gqa_small", "--space", "mirage", "--strategy", "dfs-omp", "--threads", "2", "--out",
       dir + "/cut.json"},
      dir);
  ASSERT_GE(pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << "SIGTERM ended the process instead of stopping the search";
  EXPECT_EQ(WEXITSTATUS(status), 143) << read_file(dir + "/err");
  EXPECT_NE(read_file(dir + "/out").find("so far (stopped by SIGTERM)"), std::string::npos) << read_file(dir + "/out");
  const json cut = json::parse(read_file(dir + "/cut.json"));
  EXPECT_EQ(cut["run"]["partial"], true);
  EXPECT_EQ(cut["run"]["stopped_by"], "SIGTERM");
  EXPECT_GT(cut["stats"]["states_expanded"].get<uint64_t>(), 0u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/cut.json.tmp"));
}

TEST(SearchCli, BadConfigsExit2WithOneLine) {
  const std::string dir = test::temp_dir();
  std::ofstream(dir + "/bad.json") << R"({"max_block_ops": 99})";
  std::ofstream(dir + "/notjson.json") << "{";
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const Case cases[] = {
      {{"search", "lora_small", "--config", dir + "/bad.json"}, "config key 'max_block_ops' must be an integer from 2"},
      {{"search", "lora_small", "--config", dir + "/notjson.json"}, "not valid JSON"},
      {{"search", "lora_small", "--config", dir + "/missing.json"}, "missing.json"},
      {{"search", "nosuchprogram"}, "nosuchprogram"},
      {{"search", "lora_small", "--strategy", "bogus"}, "--strategy"},
      {{"search", "lora_small", "--threads", "0"}, "--threads"},
      {{"search", "lora_small", "--objective", "cheapest"}, "--objective"},
      {{"search", "lora_small", "--within", "1.5"}, "--within: only --objective best"},
      {{"search", "lora_small", "--objective", "best", "--within", "0.5"}, "--within"},
  };
  for (const Case& c : cases) {
    const test::RunResult r = test::run_ugsearch(c.args);
    EXPECT_EQ(r.status, 2) << c.args.back();
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists("results.json"));
  }
}

// It lists the config keys and says what the stop signals do.
TEST(SearchCli, HelpListsTheConfigKeys) {
  const test::RunResult r = test::run_ugsearch({"search", "--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* key : {"max_kernel_ops", "imaps", "fold_sizes", "--time-limit", "--strategy", "SIGINT", "SIGTERM"})
    EXPECT_NE(r.out.find(key), std::string::npos) << key;
}

}  // namespace
}  // namespace ugs
