// Splits a device's simulated time exactly into compute_s, comm_s (its own transfers), wait_s
// (idle) and offline_s (switched off by a fault). Each charge covers [mark, until) and moves the mark; the bucket still open
// when the simulation ends is closed by finish(), so the buckets add up to the run's length.
#pragma once

#include "report/run_record.hpp"

namespace edgetrain::sim {

class TimeLedger {
 public:
  enum class Bucket { Wait, Compute, Comm, Offline };
  TimeLedger(report::DeviceRecord* record, double now) : record_(record), mark_(now) {}

  void charge(Bucket bucket, double until) {
    const double span = until - mark_;
    switch (bucket) {
      case Bucket::Wait: record_->wait_s += span; break;
      case Bucket::Compute: record_->compute_s += span; break;
      case Bucket::Comm: record_->comm_s += span; break;
      case Bucket::Offline: record_->offline_s += span; break;
    }
    mark_ = until;
  }
  void open(Bucket bucket) { open_ = bucket; }
  // Charges the open bucket up to `end` (the end of the run, a fault, a failed transfer).
  void finish(double end) { charge(open_, end); }
  double mark() const { return mark_; }

 private:
  report::DeviceRecord* record_;
  double mark_;
  Bucket open_ = Bucket::Wait;
};

}  // namespace edgetrain::sim
