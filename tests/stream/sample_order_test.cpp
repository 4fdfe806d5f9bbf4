// Shuffled passes over a partition: every sample once per pass, seeded, addressable by sequence number.
#include "stream/sample_order.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "stream/rates.hpp"

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

TEST_CASE("take follows index_of pass by pass") {
  std::vector<int64_t> ids(50);
  for (int i = 0; i < 50; ++i) ids[i] = 100 + i;
  SampleOrder by_take(ids, 9), by_index(ids, 9);
  const std::vector<int64_t> taken = by_take.take(160);
  for (int64_t seq = 0; seq < 160; ++seq) CHECK(taken[seq] == by_index.index_of(seq));
  // Each pass is a permutation of the partition, and passes differ.
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<int64_t> p(taken.begin() + 50 * pass, taken.begin() + 50 * (pass + 1));
    CHECK(p != ids);
    std::sort(p.begin(), p.end());
    CHECK(p == ids);
  }
  CHECK(std::vector<int64_t>(taken.begin(), taken.begin() + 50) !=
        std::vector<int64_t>(taken.begin() + 50, taken.begin() + 100));
  CHECK(by_take.passes_started() == 4);
}

TEST_CASE("index_of depends on the sequence number alone") {
  std::vector<int64_t> ids(20);
  for (int i = 0; i < 20; ++i) ids[i] = i;
  SampleOrder sequential(ids, 3), skipping(ids, 3);
  std::vector<int64_t> expected;
  for (int64_t seq = 0; seq < 200; ++seq) expected.push_back(sequential.index_of(seq));
  // Dropped samples skip sequence numbers; going backwards works too (it recomputes the pass).
  for (int64_t seq : {5, 17, 61, 62, 130, 199, 40, 0, 199}) CHECK(skipping.index_of(seq) == expected[seq]);
  CHECK(skipping.passes_started() == 10);
  SampleOrder fresh(ids, 3);
  CHECK(fresh.passes_started() == 0);
  fresh.index_of(41);
  CHECK(fresh.passes_started() == 3);
}

TEST_CASE("sample order rejects bad input") {
  CHECK_THROWS_WITH_AS(SampleOrder(std::vector<int64_t>{}, 1), "sample order: the device's partition is empty",
                       edgetrain::stream::StreamError);
  SampleOrder order({1, 2, 3}, 1);
  CHECK_THROWS_AS(order.index_of(-1), edgetrain::stream::StreamError);
  CHECK_THROWS_AS(order.take(-2), edgetrain::stream::StreamError);
  CHECK(order.take(0).empty());
}
