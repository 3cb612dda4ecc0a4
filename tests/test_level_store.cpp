// Where the bfs engine keeps a batch's children (src/search/bfs/level_store.h) and how big its next
// batch is (schedule.h): children kept in pieces that the threads fill in any order join their level
// in order, after the nodes kept before them, so a level keeps the order the engine chose; under a
// memory limit a depth's batches start small and grow by what that depth's states cost.
#include <gtest/gtest.h>

#include <vector>

#include "search/bfs/level_store.h"
#include "search/bfs/schedule.h"

namespace ugs::search_detail {
namespace {

TEST(LevelStore, BatchesKeptInPiecesJoinTheirLevelInOrder) {
  LevelStore store(3);
  store.reset(2);
  store.open(1);
  uint32_t next = 0;  // the parent the next kept node names: the nodes' order
  for (const size_t count : {size_t{100}, 2 * NodeSlab::kNodes + 77, size_t{5}, NodeSlab::kNodes}) {
    store.reset_kept();
    const std::vector<LevelStore::Piece>& pieces = store.plan_in_order(count);
    for (size_t p = pieces.size(); p-- > 0;)  // filled last piece first, as the threads may
      for (size_t k = pieces[p].from; k < pieces[p].to; ++k)
        pieces[p].slab->push_copy({next + static_cast<uint32_t>(k), 0, 0}, {}, {});
    store.join_in_order();
    EXPECT_EQ(store.kept(), count);
    EXPECT_EQ(store.kept_bytes(), count * sizeof(Node));
    next += static_cast<uint32_t>(count);
  }
  std::vector<uint64_t> sizes;
  store.pending_sizes(sizes);
  EXPECT_EQ(sizes[1], next);
  store.flush();
  const Level& level = store.level(1);
  ASSERT_EQ(level.nodes(), next);
  for (size_t s = 0; s + 1 < level.slab_count(); ++s)  // whole slabs but the last
    EXPECT_EQ(level.slab(s).nodes.size(), NodeSlab::kNodes) << "slab " << s;
  std::vector<NodeId> ids;
  level.pending_ids(ids);
  ASSERT_EQ(ids.size(), next);
  for (uint32_t k = 0; k < next; ++k) ASSERT_EQ(level.node(ids[k]).parent, k);
}

TEST(Schedule, UnderALimitADepthStartsSmallAndGrowsByWhatItsStatesCost) {
  FrontierView view;
  view.sizes = {1'000'000, 1'000'000};
  Schedule unlimited(0, 131072, 1, Schedule::Order::Levels);
  EXPECT_EQ(unlimited.batch_size(1'000'000, view), 131072u);

  Schedule schedule(64, 131072, 1, Schedule::Order::Levels);  // 64 MiB
  EXPECT_EQ(schedule.batch_size(1'000'000, view), Schedule::kFirstBatch);
  schedule.count(256, 256 * sizeof(Node));  // one child each: room for far more, but it grows by kGrowth
  EXPECT_EQ(schedule.batch_size(1'000'000, view), Schedule::kGrowth * 256);
  schedule.count(1024, 1024 * sizeof(Node));
  EXPECT_EQ(schedule.batch_size(1'000'000, view), Schedule::kGrowth * 1280);
  EXPECT_EQ(schedule.batch_size(100, view), 100u);

  schedule.resume_at(1);  // a deeper depth takes no estimate from the one above
  EXPECT_EQ(schedule.batch_size(1'000'000, view), Schedule::kFirstBatch);
  schedule.count(256, 256 * (size_t{1} << 20));  // a MiB of children each: 64 fit in the room
  EXPECT_EQ(schedule.batch_size(1'000'000, view), 64u);
}

// The probe: kMinBatch states a batch, down as soon as the next depth holds states, no chunk
// counted, until a depth runs out with none below; then back up as always, and no more probing.
TEST(Schedule, AProbeGoesDownAFewStatesAtATimeUntilADepthRunsOut) {
  LevelStore store(1);
  store.reset(4);
  FrontierView view;
  uint64_t chunks = 0;
  for (const int64_t limit_mib : {int64_t{0}, int64_t{64}}) {
    SCOPED_TRACE(limit_mib);
    Schedule schedule(limit_mib, 131072, 1, Schedule::Order::DiveToFirst);
    view.sizes = {1000, 0, 0, 0};
    ASSERT_TRUE(schedule.advance(view, store, chunks, false));
    EXPECT_EQ(schedule.current(), 0);
    EXPECT_EQ(schedule.batch_size(1000, view), Schedule::kMinBatch);
    EXPECT_TRUE(schedule.fills_room(1000, view));
    view.sizes = {984, 300, 0, 0};  // the batch's children: down at once
    ASSERT_TRUE(schedule.advance(view, store, chunks, false));
    EXPECT_EQ(schedule.current(), 1);
    view.sizes = {984, 284, 0, 0};  // no children: the depth is not done yet, so the probe stays
    ASSERT_TRUE(schedule.advance(view, store, chunks, false));
    EXPECT_EQ(schedule.current(), 1);
    EXPECT_EQ(schedule.batch_size(284, view), Schedule::kMinBatch);
    view.sizes = {984, 268, 40, 0};
    ASSERT_TRUE(schedule.advance(view, store, chunks, false));
    EXPECT_EQ(schedule.current(), 2);
    view.sizes = {984, 268, 0, 0};  // depth 2 ran out, nothing below: back up to depth 1, probe over
    ASSERT_TRUE(schedule.advance(view, store, chunks, false));
    EXPECT_EQ(schedule.current(), 1);
    EXPECT_FALSE(schedule.probing());
    EXPECT_EQ(chunks, 0u);
    // No μGraph yet: the dive's limit sizes the batch (its first at a depth: kFirstBatch).
    EXPECT_TRUE(schedule.diving());
    EXPECT_EQ(schedule.batch_size(268, view), Schedule::kFirstBatch);
    view.sizes = {984, 252, 30, 0};  // under the limit the depth is finished before the next
    ASSERT_TRUE(schedule.advance(view, store, chunks, false));
    EXPECT_EQ(schedule.current(), 1);
    view.found = true;  // a μGraph: the memory limit alone, if any
    ASSERT_TRUE(schedule.advance(view, store, chunks, false));
    EXPECT_FALSE(schedule.diving());
    EXPECT_EQ(schedule.batch_size(268, view), limit_mib == 0 ? 268u : Schedule::kFirstBatch);
    view.found = false;
  }
  Schedule resumed(0, 131072, 1, Schedule::Order::DiveToFirst);
  resumed.resume_at(2);  // a resumed run had its probe
  EXPECT_FALSE(resumed.probing());
}

// The dive: until a μGraph is found the frontier keeps under kDiveBytes (or a lower memory limit),
// depth-first over chunks that stats.chunks does not count; a μGraph lifts it, and the levels are
// finished in turn under the memory limit alone.
TEST(Schedule, UntilAMuGraphIsFoundTheRunDivesUnderASmallLimit) {
  LevelStore store(1);
  store.reset(3);
  for (const int64_t limit_mib : {int64_t{0}, int64_t{64}, int64_t{1}}) {
    SCOPED_TRACE(limit_mib);
    Schedule schedule(limit_mib, 131072, 1, Schedule::Order::DiveToFirst);
    schedule.resume_at(0);  // as a resumed run that has found nothing yet: no probe, the dive alone
    EXPECT_TRUE(schedule.diving());
    FrontierView view;
    uint64_t chunks = 0;
    view.sizes = {1000, 0, 0};
    ASSERT_TRUE(schedule.advance(view, store, chunks, false));
    view.sizes = {500, 3000, 0};
    view.bytes = Schedule::kDiveBytes + 1;  // past the dive's limit: down
    ASSERT_TRUE(schedule.advance(view, store, chunks, false));
    EXPECT_EQ(schedule.current(), 1);
    EXPECT_EQ(chunks, limit_mib == 1 ? 1u : 0u) << "past the memory limit only";
    view.found = true;  // down no more while under the memory limit
    view.sizes = {500, 2000, 100};
    view.bytes = Schedule::kDiveBytes / 2;
    ASSERT_TRUE(schedule.advance(view, store, chunks, false));
    EXPECT_FALSE(schedule.diving());
    EXPECT_EQ(schedule.current(), limit_mib == 1 ? 2 : 1);
  }
}

// Under --objective best a μGraph does not lift the dive: the run stays depth-first over chunks of
// kDiveBytes (or a lower memory limit) to its end, and a resumed run dives to its end too.
TEST(Schedule, UnderTheBestObjectiveTheDiveLastsTheWholeRun) {
  LevelStore store(1);
  store.reset(3);
  for (const int64_t limit_mib : {int64_t{0}, int64_t{64}}) {
    SCOPED_TRACE(limit_mib);
    Schedule schedule(limit_mib, 131072, 1, Schedule::Order::DiveThroughout);
    EXPECT_TRUE(schedule.probing());
    schedule.resume_at(0);
    FrontierView view;
    uint64_t chunks = 0;
    view.found = true;
    view.sizes = {1000, 0, 0};
    ASSERT_TRUE(schedule.advance(view, store, chunks, false));
    EXPECT_TRUE(schedule.diving());
    view.sizes = {500, 3000, 0};
    view.bytes = Schedule::kDiveBytes + 1;  // past the dive's limit, under the memory limit: down
    ASSERT_TRUE(schedule.advance(view, store, chunks, false));
    EXPECT_EQ(schedule.current(), 1);
    EXPECT_TRUE(schedule.diving());
    EXPECT_EQ(chunks, 0u);
    // The dive's limit sizes the batches: at 64 KiB of children a state, 4 MiB hold 64 states',
    // where the memory limit alone would take 1024 (kGrowth times the 256 counted) or all 3000.
    schedule.count(256, 256 * (size_t{64} << 10));
    view.bytes = 0;
    EXPECT_EQ(schedule.batch_size(3000, view), Schedule::kDiveBytes / (size_t{64} << 10));
  }
}

}  // namespace
}  // namespace ugs::search_detail
