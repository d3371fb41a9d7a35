// The run pool: every task once, results by index, inline for one job, and
// the first exception rethrown on the caller.
#include "prefixroute/base/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace prefixroute::parallel_test {
namespace {

TEST(ParallelFor, RunsEveryTaskOnceWithResultsStoredByIndex) {
  for (const unsigned jobs : {1u, 2u, 4u, 16u}) {
    std::vector<int> out(100, 0);
    std::atomic<int> calls{0};
    parallel_for(out.size(), jobs, [&](std::size_t i) {
      out[i] += static_cast<int>(i * i);
      ++calls;
    });
    EXPECT_EQ(calls.load(), 100) << jobs;
    for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], static_cast<int>(i * i)) << jobs;
  }
}

TEST(ParallelFor, OneJobRunsInOrderOnTheCallingThread) {
  std::vector<std::size_t> order;
  const auto caller = std::this_thread::get_id();
  bool same_thread = true;
  parallel_for(5, 1, [&](std::size_t i) {
    order.push_back(i);
    same_thread = same_thread && std::this_thread::get_id() == caller;
  });
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  EXPECT_TRUE(same_thread);
}

TEST(ParallelFor, ZeroJobsMeansOneAndNoTasksIsFine) {
  int calls = 0;
  parallel_for(3, 0, [&](std::size_t) { ++calls; });
  EXPECT_EQ(calls, 3);
  parallel_for(0, 4, [&](std::size_t) { ++calls; });
  EXPECT_EQ(calls, 3);
}

TEST(ParallelFor, UsesSeveralThreadsWhenAsked) {
  // Two tasks that each wait for the other to have started: only finishes
  // if they run at the same time.
  std::atomic<int> started{0};
  parallel_for(2, 2, [&](std::size_t) {
    ++started;
    while (started.load() < 2) std::this_thread::yield();
  });
  EXPECT_EQ(started.load(), 2);
}

TEST(ParallelFor, RethrowsTheFirstExceptionAfterTheOthersFinish) {
  std::atomic<int> finished{0};
  EXPECT_THROW(parallel_for(50, 4,
                            [&](std::size_t i) {
                              if (i == 3) throw std::runtime_error("task 3");
                              ++finished;
                            }),
               std::runtime_error);
  EXPECT_LT(finished.load(), 50);
}

TEST(HardwareJobs, IsAtLeastOne) { EXPECT_GE(hardware_jobs(), 1u); }

}  // namespace
}  // namespace prefixroute::parallel_test
