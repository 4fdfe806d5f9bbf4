// See sample_order.hpp.
#include "stream/sample_order.hpp"

#include <algorithm>
#include <stdexcept>

namespace edgetrain::stream {

SampleOrder::SampleOrder(std::vector<int64_t> partition, uint64_t seed) : partition_(std::move(partition)), rng_(seed) {
  if (partition_.empty()) throw std::invalid_argument("SampleOrder: empty partition");
  reshuffle();
}

void SampleOrder::reshuffle() {
  std::shuffle(partition_.begin(), partition_.end(), rng_);
  cursor_ = 0;
  ++passes_;
}

std::vector<int64_t> SampleOrder::take(int64_t count) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(std::max<int64_t>(count, 0)));
  for (int64_t i = 0; i < count; ++i) {
    if (cursor_ == partition_.size()) reshuffle();
    out.push_back(partition_[cursor_++]);
  }
  return out;
}

}  // namespace edgetrain::stream
