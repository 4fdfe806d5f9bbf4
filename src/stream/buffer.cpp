// The stream buffer: chunks of consecutive samples, four policies, exact accounting (see buffer.hpp).
#include "stream/buffer.hpp"

#include <algorithm>
#include <cmath>

#include "stream/rates.hpp"

namespace edgetrain::stream {

BufferPolicy parse_buffer_policy(const std::string& name) {
  if (name == "persistence") return BufferPolicy::Persistence;
  if (name == "truncation") return BufferPolicy::Truncation;
  if (name == "drop-oldest") return BufferPolicy::DropOldest;
  if (name == "drop-newest") return BufferPolicy::DropNewest;
  throw StreamError("unknown buffer policy '" + name +
                    "' (expected persistence, truncation, drop-oldest or drop-newest)");
}

std::string buffer_policy_name(BufferPolicy policy) {
  switch (policy) {
    case BufferPolicy::Persistence: return "persistence";
    case BufferPolicy::Truncation: return "truncation";
    case BufferPolicy::DropOldest: return "drop-oldest";
    case BufferPolicy::DropNewest: return "drop-newest";
  }
  throw StreamError("unknown buffer policy");
}

double StreamBuffer::Segment::time_of(int64_t j) const {
  if (chunk.count <= 1 || j <= 0) return chunk.t_first;
  if (j >= chunk.count - 1) return chunk.t_last;
  return chunk.t_first + (chunk.t_last - chunk.t_first) * static_cast<double>(j) / static_cast<double>(chunk.count - 1);
}

StreamBuffer::StreamBuffer(BufferPolicy policy, int64_t capacity_samples)
    : policy_(policy), capacity_(capacity_samples) {
  const bool bounded = policy == BufferPolicy::DropOldest || policy == BufferPolicy::DropNewest;
  if (bounded && capacity_samples <= 0)
    throw StreamError("stream buffer: policy " + buffer_policy_name(policy) + " needs a capacity > 0, got " +
                      std::to_string(capacity_samples));
}

void StreamBuffer::drop_oldest(int64_t count) {
  while (count > 0) {
    Segment& s = chunks_.front();
    const int64_t n = std::min(count, s.end - s.begin);
    s.begin += n;
    count -= n;
    size_ -= n;
    dropped_ += n;
    if (s.begin == s.end) chunks_.pop_front();
  }
}

void StreamBuffer::add(const ArrivalChunk& chunk) {
  if (chunk.count < 0) throw StreamError("stream buffer: a chunk of " + std::to_string(chunk.count) + " samples");
  if (chunk.count == 0) return;
  if (!(chunk.t_last >= chunk.t_first))  // also refuses NaN times
    throw StreamError("stream buffer: a chunk whose last arrival precedes its first");
  arrived_ += chunk.count;
  int64_t accepted = chunk.count;
  if (policy_ == BufferPolicy::DropNewest) {
    // Keep the chunk's oldest samples that fit; the newer ones are refused on arrival.
    accepted = std::clamp<int64_t>(capacity_ - size_, 0, chunk.count);
    dropped_ += chunk.count - accepted;
  }
  if (accepted > 0) {
    chunks_.push_back({chunk, 0, accepted});
    size_ += accepted;
  }
  if (policy_ == BufferPolicy::DropOldest && size_ > capacity_) drop_oldest(size_ - capacity_);
  peak_ = std::max(peak_, size_);
}

void StreamBuffer::add(const std::vector<ArrivalChunk>& chunks) {
  for (const ArrivalChunk& c : chunks) add(c);
}

void StreamBuffer::truncate(int64_t keep) {
  if (keep < 0) throw StreamError("stream buffer: truncate to " + std::to_string(keep) + " samples");
  if (policy_ != BufferPolicy::Truncation) return;
  if (size_ > keep) drop_oldest(size_ - keep);
}

TakenSamples StreamBuffer::take(int64_t count, double now) {
  if (count < 0 || count > size_)
    throw StreamError("stream buffer: cannot take " + std::to_string(count) + " samples from a buffer holding " +
                      std::to_string(size_));
  TakenSamples out;
  out.seqs.reserve(static_cast<size_t>(count));
  while (count > 0) {
    Segment& s = chunks_.front();
    const int64_t n = std::min(count, s.end - s.begin);
    for (int64_t j = s.begin; j < s.begin + n; ++j) out.seqs.push_back(s.chunk.first_seq + j);
    // Linear arrival times: the ages of n consecutive samples sum to n * (now - midpoint).
    const double t_oldest = s.time_of(s.begin), t_newest = s.time_of(s.begin + n - 1);
    out.age_sum_s += static_cast<double>(n) * (now - 0.5 * (t_oldest + t_newest));
    out.age_max_s = std::max(out.age_max_s, now - t_oldest);
    s.begin += n;
    count -= n;
    size_ -= n;
    taken_ += n;
    if (s.begin == s.end) chunks_.pop_front();
  }
  return out;
}

}  // namespace edgetrain::stream
