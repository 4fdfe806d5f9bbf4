// Seeded shuffled passes over a partition, addressable by stream sequence number (see sample_order.hpp).
// Each pass has a generator of its own, so index_of(seq) depends on seq alone, not on the calls before it.
#include "stream/sample_order.hpp"

#include <algorithm>
#include <string>

#include "stream/rates.hpp"
#include "util/seed.hpp"

namespace edgetrain::stream {

SampleOrder::SampleOrder(std::shared_ptr<const std::vector<int64_t>> partition, uint64_t seed)
    : partition_(std::move(partition)), seed_(seed) {
  if (!partition_ || partition_->empty()) throw StreamError("sample order: the device's partition is empty");
}

int64_t SampleOrder::index_of(int64_t seq) {
  if (seq < 0) throw StreamError("sample order: negative sequence number " + std::to_string(seq));
  const auto n = static_cast<int64_t>(partition_->size());
  const int64_t pass = seq / n;
  if (pass != cached_pass_) {
    pass_order_ = *partition_;
    std::mt19937_64 rng(util::derive_seed(seed_, "pass", static_cast<uint64_t>(pass)));
    std::shuffle(pass_order_.begin(), pass_order_.end(), rng);
    cached_pass_ = pass;
  }
  passes_ = std::max(passes_, pass + 1);
  return pass_order_[static_cast<size_t>(seq % n)];
}

void SampleOrder::note(int64_t seq) {
  if (seq < 0) throw StreamError("sample order: negative sequence number " + std::to_string(seq));
  passes_ = std::max(passes_, seq / static_cast<int64_t>(partition_->size()) + 1);
}

void SampleOrder::skip(int64_t count) {
  if (count < 0) throw StreamError("sample order: cannot take " + std::to_string(count) + " samples");
  if (count == 0) return;
  cursor_ += count;
  note(cursor_ - 1);
}

std::vector<int64_t> SampleOrder::take(int64_t count) {
  if (count < 0) throw StreamError("sample order: cannot take " + std::to_string(count) + " samples");
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) out.push_back(index_of(cursor_++));
  return out;
}

}  // namespace edgetrain::stream
