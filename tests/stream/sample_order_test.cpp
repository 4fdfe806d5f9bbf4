// Shuffled passes over a partition: every sample once per pass, seeded.
#include "stream/sample_order.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using edgetrain::stream::SampleOrder;

TEST_CASE("each pass visits every sample exactly once") {
  SampleOrder order({10, 11, 12, 13, 14, 15, 16}, 42);
  std::vector<int64_t> first = order.take(7);
  std::sort(first.begin(), first.end());
  CHECK(first == std::vector<int64_t>{10, 11, 12, 13, 14, 15, 16});
  CHECK(order.passes_started() == 1);
  std::vector<int64_t> next = order.take(9);  // crosses into the third pass
  CHECK(order.passes_started() == 3);
  std::vector<int64_t> second(next.begin(), next.begin() + 7);
  std::sort(second.begin(), second.end());
  CHECK(second == first);
}

TEST_CASE("the order is seeded") {
  std::vector<int64_t> ids(50);
  for (int i = 0; i < 50; ++i) ids[i] = i;
  CHECK(SampleOrder(ids, 1).take(50) == SampleOrder(ids, 1).take(50));
  CHECK(SampleOrder(ids, 1).take(50) != SampleOrder(ids, 2).take(50));
}
