// Splits a device's simulated time exactly into compute_s, comm_s (its own transfers) and
// wait_s (idle). Each charge covers [mark, until) and moves the mark; the bucket still open
// when the simulation ends is closed by finish(), so the buckets add up to the run's length.
#pragma once

#include "report/run_record.hpp"

namespace edgetrain::sim {

class TimeLedger {
 public:
  enum class Bucket { Wait, Compute, Comm };
  TimeLedger(report::DeviceRecord* record, double now) : record_(record), mark_(now) {}

  void charge(Bucket bucket, double until) {
    const double span = until - mark_;
    switch (bucket) {
      case Bucket::Wait: record_->wait_s += span; break;
      case Bucket::Compute: record_->compute_s += span; break;
      case Bucket::Comm: record_->comm_s += span; break;
    }
    mark_ = until;
  }
  void open(Bucket bucket) { open_ = bucket; }
  void finish(double end) { charge(open_, end); }
  double mark() const { return mark_; }

 private:
  report::DeviceRecord* record_;
  double mark_;
  Bucket open_ = Bucket::Wait;
};

}  // namespace edgetrain::sim
