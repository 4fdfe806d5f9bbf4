// A device's stream buffer: the samples that arrived and are not yet taken (for training) or dropped, held
// as chunks of consecutive sequence numbers (no per-sample storage for fluid streams).
// Every sample is accounted for, exactly: arrived == taken + dropped + size(). Taken samples leave the buffer
// for a training step; the step may still be lost to a fault (see DeviceRecord).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "stream/arrivals.hpp"

namespace edgetrain::stream {

enum class BufferPolicy { Persistence, Truncation, DropOldest, DropNewest };
// "persistence" | "truncation" | "drop-oldest" | "drop-newest"; throws StreamError otherwise.
BufferPolicy parse_buffer_policy(const std::string& name);
std::string buffer_policy_name(BufferPolicy policy);  // the inverse of parse_buffer_policy

// Samples taken for one training step: their sequence numbers (oldest first) and their ages.
struct TakenSamples {
  std::vector<int64_t> seqs;
  double age_sum_s = 0;  // sum over the taken samples of (now - arrival time)
  double age_max_s = 0;
};

class StreamBuffer {
 public:
  // capacity_samples: the bound for DropOldest / DropNewest (> 0, else StreamError), ignored otherwise.
  StreamBuffer(BufferPolicy policy, int64_t capacity_samples);

  // Adds arrivals (in arrival order). DropOldest evicts the oldest samples beyond capacity;
  // DropNewest refuses the arrivals that do not fit. Dropped samples are counted.
  void add(const ArrivalChunk& chunk);
  void add(const std::vector<ArrivalChunk>& chunks);
  // Truncation: at the start of a step keep only the newest `keep` (>= 0) samples, drop the rest.
  // (A no-op for the other policies.)
  void truncate(int64_t keep);
  // Takes the `count` oldest samples (0 <= count <= size(), else StreamError) for training at
  // time `now`. Ages come from the chunks' linear arrival times, so age_sum_s is exact for them.
  TakenSamples take(int64_t count, double now);

  int64_t size() const { return size_; }
  int64_t arrived() const { return arrived_; }
  int64_t taken() const { return taken_; }
  int64_t dropped() const { return dropped_; }
  int64_t peak() const { return peak_; }
  BufferPolicy policy() const { return policy_; }

 private:
  // Samples [begin, end) of an arrival chunk. Times are always interpolated in the original
  // chunk, so splitting a chunk many times accumulates no rounding.
  struct Segment {
    ArrivalChunk chunk;
    int64_t begin, end;
    double time_of(int64_t j) const;  // arrival time of sample j of the chunk
  };
  void drop_oldest(int64_t count);

  BufferPolicy policy_;
  int64_t capacity_;
  std::deque<Segment> chunks_;  // oldest first
  int64_t size_ = 0, arrived_ = 0, taken_ = 0, dropped_ = 0, peak_ = 0;
};

}  // namespace edgetrain::stream
