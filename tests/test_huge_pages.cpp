// HugeArray: a table on pages of its own, zero until written, aligned for huge pages, moved without a copy.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "ugs/util/huge_pages.h"

namespace ugs {
namespace {

constexpr size_t kHuge = HugePageAllocator<uint64_t>::kHuge;

TEST(HugeArray, StartsZeroedAndAlignedToAHugePage) {
  for (bool populate : {false, true}) {
    HugeArray<uint64_t> table(3 * kHuge / sizeof(uint64_t) + 5, populate);  // not a whole number of pages
    ASSERT_NE(table.data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(table.data()) % kHuge, 0u);
    EXPECT_EQ(table.size(), 3 * kHuge / sizeof(uint64_t) + 5);
    for (size_t i = 0; i < table.size(); i += 511) EXPECT_EQ(table[i], 0u) << i;
    EXPECT_EQ(table[table.size() - 1], 0u);
    table[table.size() - 1] = 7;  // the last element is mapped: the tail page was kept
    EXPECT_EQ(table[table.size() - 1], 7u);
  }
}

TEST(HugeArray, AMoveHandsOverThePagesAndEmptiesTheSource) {
  HugeArray<uint32_t> first(1000);
  first[999] = 42;
  uint32_t* const pages = first.data();
  HugeArray<uint32_t> second(std::move(first));
  EXPECT_EQ(second.data(), pages);
  EXPECT_EQ(second[999], 42u);
  EXPECT_EQ(first.data(), nullptr);  // NOLINT(bugprone-use-after-move): a moved-from array is empty
  EXPECT_EQ(first.size(), 0u);
  HugeArray<uint32_t> third;
  third = std::move(second);
  EXPECT_EQ(third.data(), pages);
  EXPECT_EQ(third.size(), 1000u);
}

TEST(HugeArray, EmptyHoldsNoPages) {
  HugeArray<uint64_t> none(0);
  EXPECT_EQ(none.data(), nullptr);
  EXPECT_EQ(none.size(), 0u);
}

}  // namespace
}  // namespace ugs
