// A device's data stream inside the simulation: its arrival process, its buffer and the order
// in which its partition's samples arrive, glued to simulated time. Arrivals are caught up
// analytically whenever the device looks at its buffer (no event per sample).
#pragma once

#include <cstdint>
#include <vector>

#include "report/run_record.hpp"
#include "scenario/scenario.hpp"
#include "stream/arrivals.hpp"
#include "stream/buffer.hpp"
#include "stream/sample_order.hpp"

namespace edgetrain::sim {

class DeviceStream {
 public:
  DeviceStream(const scenario::StreamSpec& spec, double rate, int64_t sample_bytes, stream::SampleOrder order,
               uint64_t arrivals_seed);

  double nominal_rate() const { return nominal_rate_; }
  int64_t sample_bytes() const { return sample_bytes_; }
  const stream::StreamBuffer& buffer() const { return buffer_; }

  // Adds the samples that arrived up to `now`.
  void catch_up(double now);
  // The samples that arrive up to `now` never reach the buffer (the device was off and
  // stream.while_off is lose): returns how many.
  int64_t lose_until(double now);
  bool loses_while_off() const { return lose_while_off_; }
  // Start of a step of `batch` samples: under truncation, keep only the newest window
  // (at least one batch). Returns the time at which `batch` samples will be buffered (now when
  // they already are).
  double prepare_step(int64_t batch, double now);
  // The time at which `batch` samples will be buffered (now when they already are), without
  // truncating: what an aggregator checks before it selects the device.
  double batch_ready_at(int64_t batch, double now);
  // Takes `batch` samples (FIFO) at `now`: dataset indices (zeros unless `identities`: a
  // timing-only run needs the count alone), and their ages into `record`.
  std::vector<int64_t> take(int64_t batch, double now, report::StreamRecord& record, bool identities);
  // Fills the stream counters of `record` from the buffer.
  void fill(report::StreamRecord& record) const;
  report::BufferPoint point(double now, const std::string& device) const;

 private:
  stream::ArrivalProcess arrivals_;
  stream::StreamBuffer buffer_;
  stream::SampleOrder order_;
  double nominal_rate_;
  double window_s_;
  int64_t sample_bytes_;
  bool lose_while_off_;
};

}  // namespace edgetrain::sim
