// The breadth-first engine against the depth-first reference: the same μGraphs (structural dedup), the
// same best cost (function dedup), the same results under a memory limit that forces chunking, and
// after a resume from a checkpoint. Small spaces, so the thread sanitizer runs them too.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <filesystem>
#include <set>
#include <thread>

#include "search_util.h"
#include "test_util.h"
#include "ugs/io/checkpoint_files.h"
#include "ugs/search/search.h"
#include "ugs/util/error.h"

namespace ugs {
namespace {

using test::config_for;
using test::hashes;

RunOptions options(Strategy s, int threads) {
  RunOptions o;
  o.strategy = s;
  o.threads = threads;
  o.backend = BackendKind::Cpu;
  return o;
}

// Spaces of a second or two (the same as test_search's), with small batches so that a level takes
// several of them.
const std::pair<const char*, const char*> kSpaces[] = {
    {"rmsnorm_linear_small", R"({"grids": [[6, 1, 1]], "loop_ranges": [1, 4], "max_kernel_ops": 3, "max_block_ops": 7, "bfs_batch": 512})"},
    {"lora_small", R"({"grids": [[4, 1, 1]], "loop_ranges": [4], "max_block_ops": 8, "max_kernel_ops": 5, "bfs_batch": 512})"},
    {"ntrans_small", R"({"grids": [[4, 1, 1]], "loop_ranges": [1, 4], "max_block_ops": 8, "max_kernel_ops": 6, "bfs_batch": 512})"},
};

TEST(Bfs, StructuralDedupReturnsTheDfsResultsAtOneAndTwoThreads) {
  for (const auto& [name, overrides] : kSpaces) {
    SCOPED_TRACE(name);
    const Program p = load_program(name);
    const SearchConfig cfg = config_for(p, nlohmann::json::parse(overrides));
    const SearchResult dfs = run_search(p.graph, cfg, options(Strategy::Dfs, 1));
    ASSERT_FALSE(dfs.mugraphs.empty());
    // Completions fingerprinted by the batch, as with a GPU: chunk by chunk on the feed's thread while
    // the batch expands.
    SearchConfig batched = cfg;
    batched.bfs_batch_verify = 1;
    const SearchResult fed = run_search(p.graph, batched, options(Strategy::Bfs, 2));
    EXPECT_EQ(hashes(fed), hashes(dfs)) << "batched verify";
    EXPECT_EQ(fed.totals.states, dfs.totals.states);
    EXPECT_EQ(fed.totals.fingerprint_evals, dfs.totals.fingerprint_evals);
    for (int threads : {1, 2}) {
      const SearchResult bfs = run_search(p.graph, cfg, options(Strategy::Bfs, threads));
      EXPECT_EQ(hashes(bfs), hashes(dfs)) << threads << " threads";
      EXPECT_EQ(bfs.totals.states, dfs.totals.states);  // the same tree, level by level
      EXPECT_EQ(bfs.totals.pruned.dedup, 0u);           // the canonical form admits each graph once
      EXPECT_EQ(bfs.duplicates, 0u);
      EXPECT_EQ(bfs.workers.size(), static_cast<size_t>(threads));
      uint64_t expanded = 0;
      for (const LevelStats& l : bfs.levels) expanded += l.frontier;
      EXPECT_EQ(expanded, bfs.totals.states);
      EXPECT_GT(bfs.levels.size(), 5u);
    }
  }
}

// Fed completions (as with a GPU) are fingerprinted while the next batch expands: a batch leaves its
// states with completions to the next batch of their level. The levels are those of a run that
// verifies each state's completions as it comes, state for state; under a memory limit nothing is
// carried (the batch's size follows the kept children).
TEST(Bfs, StatesCarriedToTheNextBatchGiveTheSameLevels) {
  uint64_t carried = 0, carried_under_limit = 0, chunks = 0;  // lora_small's completions come in levels of one batch
  for (const auto& [name, overrides] : kSpaces) {
    SCOPED_TRACE(name);
    const Program p = load_program(name);
    SearchConfig cfg = config_for(p, nlohmann::json::parse(overrides));
    cfg.bfs_batch = 128;  // so that the levels with completions take several batches
    cfg.bfs_batch_verify = 0;
    const SearchResult inline_run = run_search(p.graph, cfg, options(Strategy::Bfs, 2));
    EXPECT_EQ(inline_run.carried, 0u);
    cfg.bfs_batch_verify = 1;
    for (int threads : {1, 2}) {
      SCOPED_TRACE(threads);
      const SearchResult fed = run_search(p.graph, cfg, options(Strategy::Bfs, threads));
      carried += fed.carried;
      EXPECT_EQ(hashes(fed), hashes(inline_run));
      EXPECT_EQ(fed.totals.states, inline_run.totals.states);
      EXPECT_EQ(fed.totals.verified, inline_run.totals.verified);
      EXPECT_EQ(fed.totals.fingerprint_evals, inline_run.totals.fingerprint_evals);
      ASSERT_EQ(fed.levels.size(), inline_run.levels.size());
      for (size_t d = 0; d < fed.levels.size(); ++d) {
        SCOPED_TRACE(d);
        EXPECT_EQ(fed.levels[d].frontier, inline_run.levels[d].frontier);
        EXPECT_EQ(fed.levels[d].candidates, inline_run.levels[d].candidates);
        EXPECT_EQ(fed.levels[d].survivors, inline_run.levels[d].survivors);
        EXPECT_EQ(fed.levels[d].verified, inline_run.levels[d].verified);
        EXPECT_EQ(fed.levels[d].fingerprints, inline_run.levels[d].fingerprints);
        EXPECT_EQ(inline_run.levels[d].fingerprint_calls, inline_run.levels[d].fingerprints);  // one a call
      }
      // The feed makes a call per chunk handed in while it is idle, and gathers what comes in while a
      // call runs into the next: at most one call per completion (which level a call counts at may
      // shift by a batch: calls are counted as they are waited for).
      uint64_t fingerprints = 0, calls = 0;
      for (const LevelStats& level : fed.levels) {
        fingerprints += level.fingerprints;
        calls += level.fingerprint_calls;
      }
      EXPECT_EQ(fingerprints, fed.totals.fingerprint_evals);
      EXPECT_GT(calls, 0u);
      EXPECT_LE(calls, fingerprints);
    }
    // Under a memory limit states are carried too, and finished at their depth before the schedule
    // moves to another: the same μGraphs from the same states.
    RunOptions limited = options(Strategy::Bfs, 2);
    limited.memory_limit_mib = 1;
    const SearchResult chunked = run_search(p.graph, cfg, limited);
    carried_under_limit += chunked.carried;
    chunks += chunked.chunks;
    EXPECT_EQ(hashes(chunked), hashes(inline_run));
    EXPECT_EQ(chunked.totals.states, inline_run.totals.states);
    EXPECT_EQ(chunked.totals.verified, inline_run.totals.verified);
    EXPECT_EQ(chunked.totals.fingerprint_evals, inline_run.totals.fingerprint_evals);
    ASSERT_EQ(chunked.levels.size(), inline_run.levels.size());
    for (size_t d = 0; d < chunked.levels.size(); ++d) {  // each state finished at its own depth
      SCOPED_TRACE(d);
      EXPECT_EQ(chunked.levels[d].frontier, inline_run.levels[d].frontier);
      EXPECT_EQ(chunked.levels[d].survivors, inline_run.levels[d].survivors);
      EXPECT_EQ(chunked.levels[d].verified, inline_run.levels[d].verified);
    }
  }
  EXPECT_GT(carried, 0u);
  EXPECT_GT(carried_under_limit, 0u);
  EXPECT_GT(chunks, 0u);
}

// Where bfs's threads wait (stats.idle_s): with their busy time and the serial glue's own time, the
// waits fill the threads' wall, each counted once, and the depth-first drivers report none.
TEST(Bfs, IdleAndBusyTimesFillTheThreadsWall) {
  const auto& [name, overrides] = kSpaces[1];  // lora_small: its search is ~80% of the run's wall
  const Program p = load_program(name);
  const SearchConfig cfg = config_for(p, nlohmann::json::parse(overrides));
  constexpr int kThreads = 2;
  const SearchResult bfs = run_search(p.graph, cfg, options(Strategy::Bfs, kThreads));
  const IdleTimes& i = bfs.idle;
  double idle = 0;
  for (double v : {i.expand, i.deferred, i.confirm, i.dedup, i.keep, i.route, i.fingerprint, i.serial}) {
    EXPECT_GE(v, 0.0);
    idle += v;
  }
  EXPECT_EQ(i.route, 0.0);  // one process
  double busy = 0;
  for (const Counters& w : bfs.workers) busy += w.busy_s;
  const double serial_work = i.serial / (kThreads - 1);  // the one thread working between regions
  const double filled = busy + idle + serial_work;
  EXPECT_LE(filled, kThreads * bfs.wall_s + 1e-3);  // nothing counted twice
  EXPECT_GE(filled, 0.5 * kThreads * bfs.wall_s);   // the search is most of the run's wall
  const SearchResult dfs = run_search(p.graph, cfg, options(Strategy::DfsOmp, kThreads));
  EXPECT_EQ(dfs.idle.expand + dfs.idle.keep + dfs.idle.serial, 0.0);
}

TEST(Bfs, FunctionDedupFindsTheSameBestCost) {
  for (const auto& [name, overrides] : kSpaces) {
    SCOPED_TRACE(name);
    const Program p = load_program(name);
    const SearchConfig cfg = config_for(p, nlohmann::json::parse(overrides));
    const SearchResult dfs = run_search(p.graph, cfg, options(Strategy::Dfs, 1));
    RunOptions o = options(Strategy::Bfs, 2);
    o.dedup = Dedup::Function;
    const SearchResult bfs = run_search(p.graph, cfg, o);
    ASSERT_FALSE(bfs.mugraphs.empty());
    EXPECT_DOUBLE_EQ(bfs.mugraphs[0].cost.estimated_us, dfs.mugraphs[0].cost.estimated_us);
    EXPECT_LE(bfs.totals.states, dfs.totals.states);
    for (uint64_t h : hashes(bfs)) EXPECT_TRUE(hashes(dfs).count(h));  // a subset: fewer states, no new graphs
  }
}

// The frontier may pass the limit by the children of one smallest batch (16 states): documented in the
// README; 1 MiB covers it for these spaces.
TEST(Bfs, AMemoryLimitChunksLevelsWithoutLosingAResult) {
  const Program p = load_program(kSpaces[1].first);
  const SearchConfig cfg = config_for(p, nlohmann::json::parse(kSpaces[1].second));
  const SearchResult free_run = run_search(p.graph, cfg, options(Strategy::Bfs, 2));
  RunOptions o = options(Strategy::Bfs, 2);
  o.memory_limit_mib = 1;
  const SearchResult limited = run_search(p.graph, cfg, o);
  EXPECT_GT(free_run.peak_frontier_mib, 2.0) << "the space must need more than the limit";
  EXPECT_GT(limited.chunks, 0u);
  EXPECT_EQ(hashes(limited), hashes(free_run));
  EXPECT_EQ(limited.totals.states, free_run.totals.states);
  EXPECT_LE(limited.peak_frontier_mib, 1.0 + 1.0);
}

// The probe (schedule.h) changes the order alone: with and without it, under a memory limit and
// without one, the same states and μGraphs.
TEST(Bfs, AProbeChangesTheOrderAlone) {
  const Program p = load_program(kSpaces[1].first);
  SearchConfig cfg = config_for(p, nlohmann::json::parse(kSpaces[1].second));
  cfg.bfs_probe = 0;
  RunOptions o = options(Strategy::Bfs, 2);
  o.memory_limit_mib = 0;
  const SearchResult levels = run_search(p.graph, cfg, o);
  ASSERT_FALSE(levels.mugraphs.empty());
  cfg.bfs_probe = 1;
  for (const int64_t limit_mib : {0, 1}) {
    SCOPED_TRACE(limit_mib);
    o.memory_limit_mib = limit_mib;
    const SearchResult probed = run_search(p.graph, cfg, o);
    EXPECT_EQ(hashes(probed), hashes(levels));
    EXPECT_EQ(probed.totals.states, levels.totals.states);
  }
}

// Checkpoints of o into a fresh directory (its store kept in `stores`); returns the directory.
std::string checkpoint_into(RunOptions& o, std::deque<DirectoryCheckpoints>& stores) {
  const std::string dir = test::temp_dir();
  o.checkpoints = &stores.emplace_back(dir);
  o.checkpoint_share = 1;  // every level: the tests stop runs at a level's checkpoint
  return dir;
}

// The run o stopped, resumed from its checkpoint: it ends with the whole run's results, each state
// counted once.
void expect_resumed_as_whole(const Program& p, const SearchConfig& cfg, RunOptions o, const SearchResult& whole) {
  o.time_limit_s = 0;
  o.resume = true;
  const SearchResult resumed = run_search(p.graph, cfg, o);
  EXPECT_FALSE(resumed.partial);
  EXPECT_EQ(hashes(resumed), hashes(whole));
  EXPECT_EQ(resumed.totals.states, whole.totals.states);
  EXPECT_EQ(resumed.totals.verified, whole.totals.verified);
  ASSERT_EQ(resumed.levels.size(), whole.levels.size());
  for (size_t d = 0; d < whole.levels.size(); ++d) EXPECT_EQ(resumed.levels[d].frontier, whole.levels[d].frontier);
}

TEST(Bfs, AResumedRunEndsWithTheSameResults) {
  const Program p = load_program(kSpaces[1].first);
  const SearchConfig cfg = config_for(p, nlohmann::json::parse(kSpaces[1].second));
  const SearchResult whole = run_search(p.graph, cfg, options(Strategy::Bfs, 2));
  RunOptions o = options(Strategy::Bfs, 2);
  std::deque<DirectoryCheckpoints> stores;
  const std::string dir = checkpoint_into(o, stores);
  o.time_limit_s = 0.02;  // stops after some level (the whole run takes a few times that); the checkpoint
                          // holds the last whole one
  const SearchResult cut = run_search(p.graph, cfg, o);
  ASSERT_TRUE(cut.partial);
  ASSERT_TRUE(std::filesystem::exists(dir + "/checkpoint.ugs"));
  expect_resumed_as_whole(p, cfg, o, whole);
  EXPECT_LE(hashes(cut).size(), hashes(whole).size());
  o.resume = true;
  o.seed = 2;  // another run's checkpoint is refused
  EXPECT_THROW(run_search(p.graph, cfg, o), InputError);
}

// Raises `stop` `delay_ms` after the checkpoint in `dir` says that `level` began (the checkpoint is
// written just before a level's first batch), so that the cut falls inside that level whatever the
// machine's load: a slower run stretches the level too. The time limit raises the same flag.
class StopInLevel {
 public:
  StopInLevel(const std::string& dir, int level, int delay_ms) : thread_([this, dir, level, delay_ms] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (test::checkpoint_level(dir) < level && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    stop = true;
  }) {}
  ~StopInLevel() { thread_.join(); }
  std::atomic<bool> stop{false};

 private:
  std::thread thread_;
};

// Past their share of the run's time, level checkpoints are skipped, never the last one, and the
// results do not change. Share 0: only the first level's checkpoint comes before any time is spent on
// checkpoints. (A skipped checkpoint leaves the one before it, as a kill between levels does: the
// resume tests cover a resume from it.)
TEST(Bfs, CheckpointsPastTheirShareAreSkipped) {
  const Program p = load_program(kSpaces[1].first);
  const SearchConfig cfg = config_for(p, nlohmann::json::parse(kSpaces[1].second));
  RunOptions o = options(Strategy::Bfs, 2);
  std::deque<DirectoryCheckpoints> stores;
  checkpoint_into(o, stores);
  const SearchResult every = run_search(p.graph, cfg, o);
  EXPECT_EQ(every.checkpoints_skipped, 0u);
  EXPECT_GT(every.checkpoints_written, 2u);
  EXPECT_GT(every.checkpoint_s, 0.0);

  checkpoint_into(o, stores);
  o.checkpoint_share = 0;
  const SearchResult few = run_search(p.graph, cfg, o);
  EXPECT_EQ(few.checkpoints_written, 2u);  // the first level's and the last
  EXPECT_EQ(few.checkpoints_written + few.checkpoints_skipped, every.checkpoints_written);
  EXPECT_EQ(hashes(few), hashes(every));
  EXPECT_EQ(few.totals.states, every.totals.states);
}

// A stop obeyed inside a batch: a level here is one batch, and a batch cut short counts the states it
// visited and keeps none of its children; the checkpoint holds it whole as pending, so the resumed run
// ends with the whole run's μGraphs and states. Also with the completions fingerprinted by the batch
// (the feed's thread, as with a GPU), where a cut during the fingerprints leaves the completing states
// uncounted. The levels that verify μGraphs last some tens of milliseconds (most of the run is the
// checkpoints between levels, so limits swept through the run's length missed them on a loaded
// machine): the stop is timed from the start of such a level, the longest first, until one cut falls
// inside it. Every cut run is resumed and checked, wherever the cut fell.
class BfsStopInside : public testing::TestWithParam<int> {};

TEST_P(BfsStopInside, CutsABatchShortAndTheResumeRedoesIt) {
  const Program p = load_program("gated_mlp_small");
  // Level by level from the start (no probe), so that a stop falls inside the level it waits for.
  SearchConfig cfg = config_for(p, nlohmann::json::parse(R"({"bfs_batch": 1048576, "bfs_probe": 0})"));
  cfg.bfs_batch_verify = GetParam();
  RunOptions o = options(Strategy::Bfs, 2);
  std::deque<DirectoryCheckpoints> stores;
  checkpoint_into(o, stores);
  const SearchResult whole = run_search(p.graph, cfg, o);
  ASSERT_FALSE(whole.partial);
  std::vector<LevelStats> verifying;
  for (const LevelStats& level : whole.levels)
    if (level.verified > 0) verifying.push_back(level);
  ASSERT_FALSE(verifying.empty());
  std::sort(verifying.begin(), verifying.end(), [](auto& a, auto& b) { return a.wall_s > b.wall_s; });
  bool inside = false;
  for (const LevelStats& level : verifying) {
    for (int delay_ms : {1, static_cast<int>(level.wall_s * 1000 / 3)}) {
      SCOPED_TRACE(testing::Message() << "level " << level.level << ", " << delay_ms << " ms in");
      const std::string dir = checkpoint_into(o, stores);
      SearchResult cut;
      {
        StopInLevel stopper(dir, level.level, delay_ms);
        o.stop = &stopper.stop;
        cut = run_search(p.graph, cfg, o);
      }
      o.stop = nullptr;
      const size_t at = cut.levels.size() - 1;  // the level the stop fell in (its stats begin with it)
      if (cut.partial && at == static_cast<size_t>(level.level) && cut.levels[at].frontier < level.frontier) {
        inside = true;
        EXPECT_EQ(cut.levels[at].survivors, 0u);
        EXPECT_EQ(test::checkpoint_level(dir), level.level);
      }
      expect_resumed_as_whole(p, cfg, o, whole);
      if (inside) return;
    }
  }
  ADD_FAILURE() << "no stop fell inside a level";
}

INSTANTIATE_TEST_SUITE_P(BatchVerify, BfsStopInside, testing::Values(0, 1));

// Levels of many batches with fed completions: a run stopped inside such a level leaves states carried
// to the next batch unfinished, and the checkpoint holds them as pending, uncounted. Most batches of
// this space's levels 7 and 8 (64 states, about 1.7 ms each when the machine is idle) carry some. The
// run is stopped a little after its checkpoint says level 7 began, so that the cut falls some batches
// into it whatever the machine's load (a slower run stretches the level too): twice, at two delays.
TEST(Bfs, AResumeFinishesTheStatesCarriedToTheNextBatch) {
  constexpr int kLevel = 7;
  const Program p = load_program("gated_mlp_small");
  SearchConfig cfg = config_for(p, nlohmann::json::parse(R"({"bfs_batch": 64, "bfs_probe": 0})"));  // as above
  cfg.bfs_batch_verify = 1;
  RunOptions o = options(Strategy::Bfs, 2);
  const SearchResult whole = run_search(p.graph, cfg, o);
  ASSERT_GT(whole.carried, 0u);
  ASSERT_GT(whole.levels.size(), static_cast<size_t>(kLevel + 1));
  ASSERT_GT(whole.levels[kLevel].verified, 0u);  // its states complete μGraphs
  std::deque<DirectoryCheckpoints> stores;
  for (int delay_ms : {10, 50}) {
    SCOPED_TRACE(delay_ms);
    const std::string dir = checkpoint_into(o, stores);
    SearchResult cut;
    {
      StopInLevel stopper(dir, kLevel, delay_ms);
      o.stop = &stopper.stop;
      cut = run_search(p.graph, cfg, o);
    }
    o.stop = nullptr;
    ASSERT_TRUE(cut.partial);
    EXPECT_GE(test::checkpoint_level(dir), kLevel);
    EXPECT_GT(cut.carried, 0u);
    expect_resumed_as_whole(p, cfg, o, whole);
  }
}

}  // namespace
}  // namespace ugs
