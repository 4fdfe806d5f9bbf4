// Partitioners: disjointness, sizes, label skew and seeding.
#include "learn/partition.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

using namespace edgetrain::learn;

namespace {
std::vector<int64_t> balanced_labels(int64_t n, int64_t classes) {
  std::vector<int64_t> labels(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) labels[i] = i % classes;
  return labels;
}
std::set<int64_t> labels_of(const std::vector<int64_t>& part, const std::vector<int64_t>& labels) {
  std::set<int64_t> s;
  for (int64_t i : part) s.insert(labels[i]);
  return s;
}
void check_disjoint(const std::vector<std::vector<int64_t>>& parts, size_t expected_total) {
  std::set<int64_t> seen;
  size_t total = 0;
  for (const auto& p : parts) {
    total += p.size();
    seen.insert(p.begin(), p.end());
  }
  CHECK(total == expected_total);
  CHECK(seen.size() == total);
}
}  // namespace

TEST_CASE("iid: equal disjoint slices covering all classes") {
  const auto labels = balanced_labels(1003, 10);
  const auto parts = partition_indices(labels, 10, 4, PartitionConfig{"iid", 2, 0.5, 1});
  REQUIRE(parts.size() == 4);
  for (const auto& p : parts) {
    CHECK(p.size() == 250);
    CHECK(labels_of(p, labels).size() == 10);
  }
  check_disjoint(parts, 1000);
}

TEST_CASE("shards: each device sees exactly k labels on balanced data") {
  const auto labels = balanced_labels(1000, 10);
  for (int64_t k : {1, 2}) {
    // 10/k devices x k shards = 10 shards of 100 samples: each shard is exactly one class.
    const auto parts = partition_indices(labels, 10, 10 / k, PartitionConfig{"shards", k, 0.5, 3});
    for (const auto& p : parts) CHECK(labels_of(p, labels).size() == static_cast<size_t>(k));
    check_disjoint(parts, 1000);
  }
  CHECK_THROWS_AS(partition_indices(balanced_labels(5, 5), 5, 4, PartitionConfig{"shards", 2, 0.5, 1}), PartitionError);
}

TEST_CASE("dirichlet: every sample assigned once, small alpha skews labels") {
  const auto labels = balanced_labels(2000, 10);
  // Each class is split among devices by Dirichlet(alpha) shares: with a small alpha nearly all of a
  // class lands on one device, with a large one it spreads evenly.
  const auto concentrated_classes = [&](double alpha) {
    const auto parts = partition_indices(labels, 10, 4, PartitionConfig{"dirichlet", 2, alpha, 1});
    check_disjoint(parts, 2000);
    std::vector<std::vector<size_t>> count(10, std::vector<size_t>(parts.size()));
    for (size_t d = 0; d < parts.size(); ++d) {
      for (int64_t i : parts[d]) ++count[labels[i]][d];
    }
    size_t concentrated = 0;
    for (const auto& per_device : count) {
      if (*std::max_element(per_device.begin(), per_device.end()) * 10 > 200 * 8) ++concentrated;  // > 80%
    }
    return concentrated;
  };
  CHECK(concentrated_classes(0.05) >= 8);
  CHECK(concentrated_classes(100.0) == 0);
}

TEST_CASE("same seed, same partition, another seed, another one") {
  const auto labels = balanced_labels(500, 10);
  const PartitionConfig a{"dirichlet", 2, 0.5, 11}, b{"dirichlet", 2, 0.5, 12};
  CHECK(partition_indices(labels, 10, 3, a) == partition_indices(labels, 10, 3, a));
  CHECK(partition_indices(labels, 10, 3, a) != partition_indices(labels, 10, 3, b));
}

TEST_CASE("a device left without data is a clear error") {
  CHECK_THROWS_WITH_AS(partition_indices(balanced_labels(3, 3), 3, 5, PartitionConfig{}),
                       doctest::Contains("receives no training sample"), PartitionError);
}

TEST_CASE("natural: each device gets its users' samples, in file order or a seeded shuffle") {
  // Users 0, 1, 3 hold 2, 3 and 1 samples; user 2 has none and is skipped.
  const std::vector<int64_t> users = {0, 1, 0, 1, 1, 3};
  PartitionConfig c;
  c.kind = "natural";
  const auto parts = natural_partition(users, 3, c);
  CHECK(parts == std::vector<std::vector<int64_t>>{{0, 2}, {1, 3, 4}, {5}});
  CHECK(natural_partition(users, 2, c) == std::vector<std::vector<int64_t>>{{0, 2}, {1, 3, 4}});
  c.users_per_device = 2;
  CHECK(natural_partition(users, 1, c) == std::vector<std::vector<int64_t>>{{0, 2, 1, 3, 4}});
  CHECK_THROWS_WITH_AS(natural_partition(users, 2, c),
                       "dataset.partition: natural gives 2 user(s) to each of 2 devices, but the training set has 3 "
                       "users with samples (at most 1 devices)",
                       PartitionError);
  c.users_per_device = 1;
  c.shuffle_users = true;
  const auto shuffled = natural_partition(users, 3, c);
  CHECK(shuffled == natural_partition(users, 3, c));  // seeded
  std::vector<size_t> sizes;
  for (const auto& p : shuffled) sizes.push_back(p.size());
  std::sort(sizes.begin(), sizes.end());
  CHECK(sizes == std::vector<size_t>{1, 2, 3});  // whole users, whatever their order
  bool moved = false;
  for (uint64_t seed = 1; seed < 20 && !moved; ++seed) {
    c.seed = seed;
    moved = natural_partition(users, 3, c) != parts;
  }
  CHECK(moved);
  CHECK_THROWS_WITH_AS(natural_partition({}, 2, c),
                       doctest::Contains("natural needs a data set whose samples carry users"), PartitionError);
  CHECK_THROWS_AS(partition_indices({0, 1}, 2, 1, c), PartitionError);
}
