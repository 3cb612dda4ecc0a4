// FirstException carries an exception out of an OpenMP region or a set of threads: the first one is
// rethrown after the join, the bodies after it are skipped, and nothing terminates.
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ugs/util/first_exception.h"

namespace ugs {
namespace {

std::string message_of(const FirstException& f) {
  try {
    f.rethrow();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(FirstException, LeavesAnOpenMpRegionAfterIt) {
  FirstException failure;
#pragma omp parallel for schedule(dynamic, 1) num_threads(4)
  for (int i = 0; i < 1000; ++i)
    failure.capture([&] {
      if (i == 3) throw std::runtime_error("item 3");
    });
  EXPECT_TRUE(failure.failed());
  EXPECT_EQ(message_of(failure), "item 3");
  // Once failed, every later body is skipped (which of the first region's ran depends on timing).
  std::atomic<int> ran{0};
#pragma omp parallel for num_threads(4)
  for (int i = 0; i < 1000; ++i) failure.capture([&] { ++ran; });
  EXPECT_EQ(ran.load(), 0);
}

TEST(FirstException, KeepsOneOfManyFromThreads) {
  FirstException failure;
  std::vector<std::thread> pool;
  for (int t = 0; t < 4; ++t)
    pool.emplace_back([&, t] { failure.capture([&] { throw std::out_of_range("thread " + std::to_string(t)); }); });
  for (std::thread& th : pool) th.join();
  EXPECT_EQ(message_of(failure).rfind("thread ", 0), 0u) << message_of(failure);
  EXPECT_THROW(failure.rethrow(), std::out_of_range);
}

TEST(FirstException, NothingToRethrowWithoutAFailure) {
  FirstException failure;
  int sum = 0;
  for (int i = 0; i < 10; ++i) failure.capture([&] { sum += i; });
  EXPECT_FALSE(failure.failed());
  EXPECT_NO_THROW(failure.rethrow());
  EXPECT_EQ(sum, 45);
}

}  // namespace
}  // namespace ugs
