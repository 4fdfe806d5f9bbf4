// The order in which a device sees the samples of its partition: seeded shuffled passes,
// a new shuffle each time the partition is exhausted. Pure C++, no simulator.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

namespace edgetrain::stream {

class SampleOrder {
 public:
  // Throws StreamError for an empty partition. The partition may be shared with other devices.
  SampleOrder(std::shared_ptr<const std::vector<int64_t>> partition, uint64_t seed);
  SampleOrder(std::vector<int64_t> partition, uint64_t seed)
      : SampleOrder(std::make_shared<const std::vector<int64_t>>(std::move(partition)), seed) {}
  // The next `count` sample indices (crossing pass boundaries as needed): index_of(cursor),
  // index_of(cursor + 1), ... from a cursor that starts at 0.
  std::vector<int64_t> take(int64_t count);
  // The same for a consumer that needs the count only (timing-only runs): the cursor and the
  // passes move as take would move them, and no pass is shuffled.
  void skip(int64_t count);
  // What index_of(seq) would record of `seq`, without shuffling its pass.
  void note(int64_t seq);
  // The dataset index of stream sequence number `seq` (0, 1, ...): position seq % n of pass
  // seq / n, each pass a seeded shuffle. Streams use this, so dropped samples simply skip
  // sequence numbers. Cheap for non-decreasing seqs (the current pass is cached).
  int64_t index_of(int64_t seq);
  // Passes reached so far by take or index_of: 1 + the pass of the highest seq asked (0 if none).
  int64_t passes_started() const { return passes_; }

 private:
  // As given; pass p is its shuffle seeded by (seed, "pass", p).
  std::shared_ptr<const std::vector<int64_t>> partition_;
  uint64_t seed_;
  std::vector<int64_t> pass_order_;  // the cached pass
  int64_t cached_pass_ = -1;
  int64_t cursor_ = 0;  // next seq for take
  int64_t passes_ = 0;
};

}  // namespace edgetrain::stream
