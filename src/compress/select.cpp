// See select.hpp.
#include "compress/select.hpp"

#include <bit>

namespace edgetrain::compress::detail {

namespace {

// |x| as its bit pattern, which orders like the magnitudes (-0 and +0 alike); NaN counts as
// infinity, the largest magnitude (it is sent, not hidden).
uint32_t magnitude_key(float x) {
  const uint32_t a = std::bit_cast<uint32_t>(x) & 0x7fffffffu;
  return a > 0x7f800000u ? 0x7f800000u : a;
}

// The bucket holding the rank-th largest count from the top; rank becomes its rank within it.
uint32_t bucket_of_rank(const uint32_t* h, size_t buckets, int64_t& rank) {
  size_t b = buckets - 1;
  while (b > 0 && int64_t{h[b]} < rank) rank -= h[b--];
  return static_cast<uint32_t>(b);
}

}  // namespace

void TopKSelector::select(std::span<const float> x, int64_t k, std::vector<int64_t>& out) {
  out.clear();
  const size_t n = x.size();
  if (k >= static_cast<int64_t>(n)) {
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<int64_t>(i));
    return;
  }
  if (k <= 0) return;
  collect_candidates(x, sample_bound(x, k));
  if (static_cast<int64_t>(candidates_) < k) collect_candidates(x, 0);
  const std::span<const uint32_t> keys(keys_.data(), candidates_);
  // Radix select among the candidates: the bucket of bits 20..30, then 10..19, then 0..9.
  int64_t rank = k;  // rank, from the top, of the k-th largest key among the keys left
  uint32_t* h = histogram(2048);
  for (uint32_t key : keys) ++h[key >> 20];
  const uint32_t b1 = bucket_of_rank(h, 2048, rank);
  h = histogram(1024);
  for (uint32_t key : keys) {
    if ((key >> 20) == b1) ++h[(key >> 10) & 1023u];
  }
  const uint32_t prefix = (b1 << 10) | bucket_of_rank(h, 1024, rank);
  h = histogram(1024);
  for (uint32_t key : keys) {
    if ((key >> 10) == prefix) ++h[key & 1023u];
  }
  const uint32_t threshold = (prefix << 10) | bucket_of_rank(h, 1024, rank);
  int64_t equal_quota = rank;  // how many keys equal to the threshold are among the k largest
  out.reserve(static_cast<size_t>(k));
  for (size_t j = 0; j < keys.size(); ++j) {
    const uint32_t key = keys[j];
    if (key > threshold || (key == threshold && equal_quota-- > 0)) out.push_back(positions_[j]);
  }
}

// A bound on the keys that about 2k + 64 entries reach, judged from every 8th entry (every
// entry of a small block).
uint32_t TopKSelector::sample_bound(std::span<const float> x, int64_t k) {
  const size_t stride = x.size() >= 4096 ? 8 : 1;
  uint32_t* h = histogram(2048);
  for (size_t i = 0; i < x.size(); i += stride) ++h[magnitude_key(x[i]) >> 20];
  const int64_t wanted = 2 * ((k + static_cast<int64_t>(stride) - 1) / static_cast<int64_t>(stride)) + 64;
  int64_t reached = 0;
  size_t b = 2047;
  while (b > 0 && (reached += h[b]) < wanted) --b;
  return static_cast<uint32_t>(b) << 20;
}

// Keys and positions of the entries whose key is at least `bound`, in position order. A NaN's
// raw bits exceed every bound a key can set (at most infinity's), so the raw |x| bits decide.
void TopKSelector::collect_candidates(std::span<const float> x, uint32_t bound) {
  if (keys_.size() < x.size()) {
    keys_.resize(x.size());
    positions_.resize(x.size());
  }
  // Every entry is written, and the count advances past those that reach the bound: no branch
  // on the data.
  size_t count = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const uint32_t a = std::bit_cast<uint32_t>(x[i]) & 0x7fffffffu;
    keys_[count] = a > 0x7f800000u ? 0x7f800000u : a;
    positions_[count] = static_cast<int64_t>(i);
    count += a >= bound ? 1 : 0;
  }
  candidates_ = count;
}

uint32_t* TopKSelector::histogram(size_t buckets) {
  histogram_.assign(buckets, 0);
  return histogram_.data();
}

}  // namespace edgetrain::compress::detail
