// `ugsearch search --strategy bfs` through the real binary: killed with SIGKILL after a level, or
// stopped by SIGINT, and resumed from its checkpoint, it ends with the μGraphs of an uninterrupted
// run; bfs-only flags are refused for the other strategies.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "test_util.h"
#include "ugs/util/hash.h"

namespace ugs {
namespace {

using nlohmann::json;

std::set<std::string> hashes(const std::string& results) {
  std::set<std::string> h;
  const json doc = json::parse(read_file(results));  // a named value: the loop must not outlive it
  for (const json& m : doc["mugraphs"]) h.insert(m["hash"].get<std::string>());
  return h;
}

// lora_small's bfs search on 2 threads, with `extra` appended.
std::vector<std::string> lora_bfs(std::vector<std::string> extra) {
  std::vector<std::string> a = {"search", "lora_small", "--strategy", "bfs", "--threads", "2"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// Runs `args` with a checkpoint in dir/ck and, once it holds level `level` or a deeper one, sends
// `sig`; returns the process's wait status.
int signalled_after_level(std::vector<std::string> args, const std::string& dir, int level, int sig) {
  args.insert(args.end(), {"--checkpoint", dir + "/ck", "--checkpoint-share", "1"});
  const pid_t pid = test::spawn_ugsearch(args, dir);
  if (pid < 0) return -1;
  const auto t0 = std::chrono::steady_clock::now();
  while (test::checkpoint_level(dir + "/ck") < level && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  kill(pid, sig);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// Resumed from dir/ck, the run ends with the μGraphs and states of the uninterrupted dir/whole.json.
void expect_resumes_to_the_whole_run(const std::string& dir) {
  const test::RunResult resumed = test::run_ugsearch(lora_bfs({"--quiet", "--resume", dir + "/ck", "--out", dir + "/resumed.json"}));
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_EQ(hashes(dir + "/resumed.json"), hashes(dir + "/whole.json"));
  const json w = json::parse(read_file(dir + "/whole.json")), r = json::parse(read_file(dir + "/resumed.json"));
  EXPECT_EQ(r["stats"]["states_expanded"], w["stats"]["states_expanded"]);
}

TEST(BfsCli, KilledAfterALevelAndResumedItFindsWhatAWholeRunFinds) {
  const std::string dir = test::temp_dir();
  ASSERT_EQ(test::run_ugsearch(lora_bfs({"--quiet", "--out", dir + "/whole.json"})).status, 0);
  const int status = signalled_after_level(lora_bfs({"--quiet", "--out", dir + "/killed.json"}), dir, 4, SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before the kill: make the space bigger";
  EXPECT_FALSE(std::filesystem::exists(dir + "/killed.json"));
  EXPECT_GE(test::checkpoint_level(dir + "/ck"), 4);
  expect_resumes_to_the_whole_run(dir);

  const test::RunResult other = test::run_ugsearch(
      {"search", "lora_small", "--strategy", "bfs", "--seed", "7", "--resume", dir + "/ck", "--out", dir + "/x.json"});
  EXPECT_EQ(other.status, 2);
  EXPECT_NE(other.err.find("written by another search"), std::string::npos) << other.err;
}

// The header of a checkpoint file and the bytes before it.
std::pair<json, std::string> header_of(const std::string& path) {
  const std::string bytes = read_file(path);
  uint64_t len = 0;
  std::memcpy(&len, bytes.data() + bytes.size() - sizeof len, sizeof len);
  const size_t end = bytes.size() - sizeof len - len;
  return {json::parse(bytes.substr(end, len)), bytes.substr(0, end)};
}

void rewrite(const std::string& path, const json& header, const std::string& body) {
  const std::string text = header.dump();
  const uint64_t len = text.size();
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      << body << text << std::string(reinterpret_cast<const char*>(&len), sizeof len);
}

// Resuming from dir/ck fails with one line naming the damage, and no results.
void expect_refused(const std::string& dir, const std::string& why) {
  const test::RunResult r = test::run_ugsearch(lora_bfs({"--quiet", "--resume", dir + "/ck", "--out", dir + "/x.json"}));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("start the search again without --resume"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/x.json"));
}

// A checkpoint whose tree is damaged is refused with one line, not resumed from: a slab file whose
// bytes differ from those its checkpoint names, and one whose ops were given operands out of range
// with its hash made to match (as a file could only be by hand), whose steps cannot apply.
TEST(BfsCli, ACheckpointWithADamagedTreeIsRefused) {
  const std::string dir = test::temp_dir();
  const int status = signalled_after_level(lora_bfs({"--quiet", "--out", dir + "/killed.json"}), dir, 3, SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before the kill: make the space bigger";
  const std::string path = dir + "/ck/checkpoint.ugs";
  auto [header, body] = header_of(path);
  // The last slab of the deepest level that has one: ops at the kernel or block level, and no base.
  json* deepest = nullptr;
  for (json& level : header.at("tree"))
    if (!level.at(1).empty()) deepest = &level.at(1).back();
  ASSERT_NE(deepest, nullptr);
  json& slab = *deepest;
  const std::string slab_path = dir + "/ck/slab.0." + std::to_string(slab.at(0).get<uint64_t>()) + ".ugs";
  const std::string good = read_file(slab_path);

  std::string bytes = good;
  bytes[bytes.size() / 2] ^= 0x10;
  std::ofstream(slab_path, std::ios::binary | std::ios::trunc) << bytes;
  expect_refused(dir, "not the bytes the checkpoint names");

  bytes = good;
  const size_t counts = 32, node = 16, nodes = slab.at(1).get<size_t>();
  size_t damaged = 0;
  for (size_t i = 0; i < nodes; ++i) {
    uint8_t* step = reinterpret_cast<uint8_t*>(bytes.data()) + counts + i * node + 8;
    if (step[0] < 0xFE) {  // an op: its first operand out of any graph
      step[2] = 0x7F;
      ++damaged;
    }
  }
  ASSERT_GT(damaged, 0u);
  slab.at(3) = hash_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  std::ofstream(slab_path, std::ios::binary | std::ios::trunc) << bytes;
  rewrite(path, header, body);
  expect_refused(dir, "holds a step no search makes");
}

// Ctrl-C stops a run as --time-limit does: exit 130, its results so far written and marked partial,
// and a checkpoint from which the run resumes to the μGraphs and states of an uninterrupted run.
TEST(BfsCli, InterruptedBySigintItWritesPartialResultsAndResumesToTheWholeRun) {
  const std::string dir = test::temp_dir();
  ASSERT_EQ(test::run_ugsearch(lora_bfs({"--quiet", "--out", dir + "/whole.json"})).status, 0);
  const int status = signalled_after_level(lora_bfs({"--out", dir + "/cut.json"}), dir, 2, SIGINT);
  ASSERT_TRUE(WIFEXITED(status)) << "SIGINT ended the process instead of stopping the search";
  EXPECT_EQ(WEXITSTATUS(status), 130);
  EXPECT_NE(read_file(dir + "/out").find("so far (stopped by SIGINT)"), std::string::npos) << read_file(dir + "/out");
  const json cut = json::parse(read_file(dir + "/cut.json")), whole = json::parse(read_file(dir + "/whole.json"));
  EXPECT_EQ(cut["run"]["partial"], true);
  EXPECT_EQ(cut["run"]["stopped_by"], "SIGINT");
  EXPECT_EQ(whole["run"]["stopped_by"], nullptr);
  EXPECT_LT(cut["stats"]["states_expanded"].get<uint64_t>(), whole["stats"]["states_expanded"].get<uint64_t>());
  expect_resumes_to_the_whole_run(dir);
}

// Without --memory-limit, bfs takes a limit from the memory available at its start; 0 says none; the
// other strategies have no frontier to limit.
TEST(BfsCli, BfsHasADefaultMemoryLimitAndZeroTurnsItOff) {
  const std::string dir = test::temp_dir();
  auto limit_of = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--quiet", "--out", dir + "/r.json"});
    const test::RunResult r = test::run_ugsearch(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return json::parse(read_file(dir + "/r.json"))["run"]["memory_limit_mib"].get<int64_t>();
  };
  const std::vector<std::string> bfs = {"search", "ntrans_small", "--strategy", "bfs"};
  const int64_t by_default = limit_of(bfs);
  EXPECT_GT(by_default, 0);
  EXPECT_LE(by_default, 128);
  std::vector<std::string> off = bfs;
  off.insert(off.end(), {"--memory-limit", "0"});
  EXPECT_EQ(limit_of(off), 0);
  EXPECT_EQ(limit_of({"search", "ntrans_small", "--strategy", "dfs"}), 0);
}

TEST(BfsCli, BfsOnlyFlagsAreRefusedForOtherStrategies) {
  for (const std::vector<std::string>& flag :
       {std::vector<std::string>{"--dedup", "function"}, {"--memory-limit", "10"}, {"--memory-limit", "0"},
        {"--checkpoint", "/tmp/x"}}) {
    std::vector<std::string> a = {"search", "lora_small", "--strategy", "dfs"};
    a.insert(a.end(), flag.begin(), flag.end());
    const test::RunResult r = test::run_ugsearch(a);
    EXPECT_EQ(r.status, 2) << flag[0];
    EXPECT_NE(r.err.find("only --strategy bfs"), std::string::npos) << r.err;
  }
  const test::RunResult no_checkpoints =
      test::run_ugsearch({"search", "lora_small", "--strategy", "bfs", "--checkpoint-share", "0.5"});
  EXPECT_EQ(no_checkpoints.status, 2);
  EXPECT_NE(no_checkpoints.err.find("--checkpoint-share: there are no checkpoints"), std::string::npos)
      << no_checkpoints.err;
  const test::RunResult missing =
      test::run_ugsearch({"search", "lora_small", "--strategy", "bfs", "--resume", test::temp_dir() + "/none"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("checkpoint.ugs"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace ugs
