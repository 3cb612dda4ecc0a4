// The closing lookahead's memo (closing_memo.h): signatures kept as 128-bit digests in flat tables,
// each answer found again as it was given, from any thread, at a bounded cost per answer.
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "search/generator/closing_memo.h"
#include "ugs/util/hash.h"

namespace ugs::search_detail {
namespace {

SignatureDigest digest_number(uint64_t n) {
  OpeningSignature key;
  key.words[0] = 4;  // a grid and loop range as signature_of writes them
  key.words[3] = 16;
  key.words[6 + n % 5] = static_cast<int64_t>(n);
  return digest_of(key);
}

TEST(ClosingMemo, SignaturesThatDifferInOneWordHaveDifferentDigests) {
  OpeningSignature a, b;
  a.words[0] = b.words[0] = 2;
  b.words[OpeningSignature::kWords - 1] = 1;
  EXPECT_EQ(digest_of(a), digest_of(OpeningSignature(a)));
  EXPECT_NE(digest_of(a).low, digest_of(b).low);
  EXPECT_NE(digest_of(a).high, digest_of(b).high);
}

TEST(AnswerTable, FindsEveryAnswerAsGivenAndNothingElse) {
  AnswerTable table;
  constexpr uint64_t kAnswers = 200000;
  for (uint64_t n = 0; n < kAnswers; ++n) table.add(digest_number(n), n % 3 == 0);
  ASSERT_EQ(table.size(), kAnswers);
  for (uint64_t n = 0; n < kAnswers; ++n) {
    const std::optional<bool> answer = table.find(digest_number(n));
    ASSERT_TRUE(answer.has_value()) << n;
    EXPECT_EQ(*answer, n % 3 == 0) << n;
  }
  for (uint64_t n = kAnswers; n < kAnswers + 1000; ++n) EXPECT_FALSE(table.find(digest_number(n)).has_value());
  // A signature answered again keeps its first answer (the searches ahead agree; the first stays).
  table.add(digest_number(1), true);
  EXPECT_EQ(table.find(digest_number(1)), std::optional<bool>(false));
  EXPECT_EQ(table.size(), kAnswers);
  // The memory the header promises: at most 64 bytes an answer.
  EXPECT_LE(table.bytes(), 64 * table.size());
  EXPECT_GE(table.bytes(), 32 * table.size());
}

TEST(AnswerTable, PastItsMostSlotsKeepsNoNewAnswer) {
  AnswerTable table(4096);
  int kept = 0;
  for (uint64_t n = 0; n < 5000; ++n) kept += table.add(digest_number(n), n % 2 == 0);
  EXPECT_EQ(kept, 2048);  // half of 4096 slots
  EXPECT_EQ(table.size(), 2048u);
  EXPECT_EQ(table.bytes(), 4096 * sizeof(SignatureDigest));
  int found = 0;
  for (uint64_t n = 0; n < 5000; ++n) {
    const std::optional<bool> answer = table.find(digest_number(n));
    if (answer) {
      EXPECT_EQ(*answer, n % 2 == 0) << n;
    }
    found += answer.has_value();
  }
  EXPECT_EQ(found, 2048);
  EXPECT_TRUE(table.add(digest_number(0), false));  // one held already stays held, as it was
  EXPECT_EQ(table.find(digest_number(0)), std::optional<bool>(true));
}

TEST(ClosingMemo, CountsTheAnswersItHasNoRoomFor) {
  ClosingMemo memo(64 * 2048 * sizeof(SignatureDigest));  // 2048 slots a shard
  for (uint64_t n = 0; n < 200000; ++n) memo.add(digest_number(n), true);
  EXPECT_LE(memo.size(), 64u * 1024);
  EXPECT_GT(memo.size(), 60u * 1024);
  EXPECT_EQ(memo.size() + memo.unremembered.load(), 200000u);
  EXPECT_EQ(memo.bytes(), 64 * 2048 * sizeof(SignatureDigest));
}

TEST(ClosingMemo, ThreadsAddAndFindTheirAnswersConcurrently) {
  ClosingMemo memo;
  constexpr int kThreads = 4;
  constexpr uint64_t kEach = 20000;
  std::vector<std::thread> threads;
  std::vector<int> wrong(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (uint64_t i = 0; i < kEach; ++i) memo.add(digest_number(t * kEach + i), (i & 1) != 0);
      for (uint64_t i = 0; i < kEach; ++i)
        wrong[t] += memo.find(digest_number(t * kEach + i)) != std::optional<bool>((i & 1) != 0);
    });
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
  EXPECT_EQ(memo.size(), kThreads * kEach);
  EXPECT_LE(memo.bytes(), 64 * memo.size() + 64 * 1024 * sizeof(SignatureDigest));
}

}  // namespace
}  // namespace ugs::search_detail
