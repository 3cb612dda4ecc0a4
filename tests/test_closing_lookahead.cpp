// The closing lookahead on a space where it pays (gqa_small's `mirage` space: the second block graph's
// openings repeat their signatures across the first block graph's variants): the same μGraphs by bfs
// with and without it and by dfs-omp with it, the same completions fingerprinted, fewer states; and with
// the closings of the openings it keeps replayed (closing_replay, the default) or searched.
#include <gtest/gtest.h>

#include "search_util.h"
#include "ugs/io/program.h"

namespace ugs {
namespace {

TEST(ClosingLookahead, GqaSmallMirageFindsTheSameWithAFractionOfTheStates) {
  const Program p = load_program("gqa_small");
  SearchConfig cfg = test::mirage_config(p);
  const SearchResult with = test::search(p, cfg, Strategy::Bfs, 2);
  const SearchResult dfs_omp = test::search(p, cfg, Strategy::DfsOmp, 2);
  cfg.closing_replay = 0;
  const SearchResult searched = test::search(p, cfg, Strategy::Bfs, 2);
  cfg.closing_lookahead = 0;
  const SearchResult without = test::search(p, cfg, Strategy::Bfs, 2);
  EXPECT_EQ(with.mugraphs.size(), 120u);
  EXPECT_EQ(test::hashes(with), test::hashes(without));
  EXPECT_EQ(test::hashes(dfs_omp), test::hashes(without));
  EXPECT_EQ(with.totals.fingerprint_evals, without.totals.fingerprint_evals);
  // States expanded plus those searched ahead: well under half.
  EXPECT_LT(2 * (with.totals.states + with.lookahead.states), without.totals.states);
  // Most signatures cannot close, and their exhaustive searches are most of the states searched
  // ahead; the memo answers more openings than it searches.
  EXPECT_GT(with.lookahead.closing, 0u);
  EXPECT_LT(10 * with.lookahead.closing, with.lookahead.signatures);
  EXPECT_LT(2 * with.lookahead.closing_states, with.lookahead.states);
  EXPECT_GT(with.lookahead.answered, with.lookahead.signatures);
  EXPECT_EQ(without.lookahead.answered, 0u);
  // Replayed, the second block graph's openings are the last states expanded: the same μGraphs and
  // fingerprints from a tenth of the states, every closing made on each opening the lookahead keeps.
  EXPECT_EQ(test::hashes(searched), test::hashes(without));
  EXPECT_EQ(searched.totals.fingerprint_evals, with.totals.fingerprint_evals);
  EXPECT_LT(8 * with.totals.states, searched.totals.states);
  EXPECT_GT(with.lookahead.replayed, 0u);
  EXPECT_GT(with.lookahead.replayed_closings, with.lookahead.replayed);
  EXPECT_EQ(with.lookahead.replayed, dfs_omp.lookahead.replayed);
  EXPECT_EQ(with.totals.states, dfs_omp.totals.states);
  EXPECT_EQ(searched.lookahead.replayed, 0u);
  EXPECT_EQ(with.lookahead.late_traces, 0u);
}

}  // namespace
}  // namespace ugs
