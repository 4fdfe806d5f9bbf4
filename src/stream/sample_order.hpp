// The order in which a device sees the samples of its partition: seeded shuffled passes,
// a new shuffle each time the partition is exhausted. Pure C++, no simulator.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace edgetrain::stream {

class SampleOrder {
 public:
  SampleOrder(std::vector<int64_t> partition, uint64_t seed);
  // The next `count` sample indices (crossing pass boundaries as needed).
  std::vector<int64_t> take(int64_t count);
  int64_t passes_started() const { return passes_; }

 private:
  void reshuffle();
  std::vector<int64_t> partition_;
  std::mt19937_64 rng_;
  size_t cursor_ = 0;
  int64_t passes_ = 0;
};

}  // namespace edgetrain::stream
