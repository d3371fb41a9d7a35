// InFlightOrder against a scan of its counts: the fewest, the first replica
// with the fewest and the most, after every change, counts moving by one (as
// dispatches and completions move them) and by jumps (as another router
// instance's counts are loaded), for sizes that are and are not powers of two.
#include "prefixroute/cluster/in_flight_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "prefixroute/base/random.h"

namespace prefixroute::in_flight_order_test {
namespace {

TEST(InFlightOrder, AgreesWithAScanAfterEveryChange) {
  for (const std::size_t n : {1u, 3u, 5u, 64u, 70u}) {
    InFlightOrder order(n);
    std::vector<std::uint32_t> counts(n, 0);
    Rng rng(n);
    for (int step = 0; step < 500; ++step) {
      const auto r = static_cast<std::size_t>(rng.below(n));
      if (step % 10 == 0) {
        counts[r] = static_cast<std::uint32_t>(rng.uniform_int(0, 9));
      } else if (counts[r] > 0 && rng.uniform_int(0, 1) == 0) {
        --counts[r];
      } else {
        ++counts[r];
      }
      order.set(r, counts[r]);
      const auto least = std::min_element(counts.begin(), counts.end());
      ASSERT_EQ(order.least(), *least) << n << " replicas, step " << step;
      ASSERT_EQ(order.first_least(), static_cast<std::size_t>(least - counts.begin())) << n << ", step " << step;
      ASSERT_EQ(order.most(), *std::max_element(counts.begin(), counts.end())) << n << ", step " << step;
    }
  }
}

}  // namespace
}  // namespace prefixroute::in_flight_order_test
