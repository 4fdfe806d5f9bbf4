// Top-k selection by magnitude, shared by the top-k encoders and ScaDLES's norm gap.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace edgetrain::compress::detail {

// Top-k selection by magnitude in linear time. The k largest magnitudes are chosen with ties
// going to the lower position, so the choice is deterministic: every key above the k-th largest
// key T, then the first positions whose key equals T. One pass over the entries keeps as
// candidates those whose key reaches a bound L; L comes from a histogram of a strided sample, set
// so that about twice k entries are expected to reach it. When at least k do, the k largest are
// all among them (otherwise the pass is redone with L = 0). A radix select over the candidates'
// 31-bit keys (11, 10 and 10 bits, counting histograms: no comparisons, no sorting) finds T.
// Holds scratch buffers as large as the largest block it was given: one selection at a time, and
// one selector per thread rather than per compressor.
class TopKSelector {
 public:
  // Positions (into x) of the k largest |x_i|, increasing, into `out`.
  void select(std::span<const float> x, int64_t k, std::vector<int64_t>& out);

 private:
  uint32_t sample_bound(std::span<const float> x, int64_t k);
  void collect_candidates(std::span<const float> x, uint32_t bound);
  uint32_t* histogram(size_t buckets);

  // The first candidates_ entries of keys_ and positions_ are the candidates, in position order.
  std::vector<uint32_t> histogram_, keys_;
  std::vector<int64_t> positions_;
  size_t candidates_ = 0;
};

}  // namespace edgetrain::compress::detail
