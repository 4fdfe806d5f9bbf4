// Splits a device's simulated time exactly into compute_s, comm_s (its own transfers), wait_s
// (idle) and offline_s (switched off by a fault). Each charge covers [mark, until) and moves the
// mark; at the end of the run close() charges the bucket still open and makes the four buckets
// add up to the run's length exactly, as doubles, in whatever order a reader adds them. A wait for the
// next model may be overlaid with transfers over the device's links that are not its own but count
// as its communication (a topology's aggregator on the device's host exchanging models, marked in
// the spans it gives count_as_comm_while_waiting): the overlap is charged to comm_s.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/run_record.hpp"
#include "sim/core/busy_spans.hpp"

namespace edgetrain::sim {

class TimeLedger {
 public:
  enum class Bucket { Wait, Compute, Comm, Offline };
  TimeLedger(report::DeviceRecord* record, double now) : record_(record), mark_(now) {}

  void charge(Bucket bucket, double until) {
    double span = until - mark_;
    if (bucket == Bucket::Wait && overlay_) {
      const double busy = std::min(span, overlay_->take(mark_, until));
      record_->comm_s += busy;
      span -= busy;
    }
    switch (bucket) {
      case Bucket::Wait: record_->wait_s += span; break;
      case Bucket::Compute: record_->compute_s += span; break;
      case Bucket::Comm: record_->comm_s += span; break;
      case Bucket::Offline: record_->offline_s += span; break;
    }
    mark_ = until;
  }
  void open(Bucket bucket) {
    open_ = bucket;
    overlay_ = nullptr;
  }
  // Transfers over the device's links, not its own, that count as its communication while it waits
  // for its next model (null: none; set before the run starts, `transfers` outlives the ledger's use).
  void count_as_comm_while_waiting(BusySpans* transfers) { wait_overlay_ = transfers; }
  // Waiting for the next model, while those transfers may cross the device's links.
  void open_wait() {
    open_ = Bucket::Wait;
    overlay_ = wait_overlay_;
  }
  // Charges the open bucket up to `end` (the end of the run, a fault, a failed transfer).
  void finish(double end) { charge(open_, end); }
  // At the end of the run. Summing spans leaves rounding errors of a few ulp, so compute_s, comm_s
  // and offline_s are rounded to multiples of ulp(end) (a change below 1e-16 relative) and wait_s,
  // the idle remainder, is what is left of `end`. Every partial sum of such multiples up to `end`
  // is a double, so any order of addition gives `end` exactly (the values print as they are).
  void close(double end) {
    finish(end);
    const double quantum = std::nextafter(end, std::numeric_limits<double>::infinity()) - end;
    double* buckets[] = {&record_->compute_s, &record_->comm_s, &record_->offline_s};
    for (double* b : buckets) *b = std::round(*b / quantum) * quantum;
    double rest = end - record_->compute_s - record_->comm_s - record_->offline_s;  // exact: multiples of quantum
    if (rest < 0) {  // the rounded buckets overshoot by a few quanta: the largest gives them back
      double* largest = *std::max_element(std::begin(buckets), std::end(buckets),
                                          [](const double* a, const double* b) { return *a < *b; });
      *largest += rest;
      rest = 0;
    }
    record_->wait_s = rest;
  }
  double mark() const { return mark_; }

 private:
  report::DeviceRecord* record_;
  double mark_;
  Bucket open_ = Bucket::Wait;
  BusySpans* overlay_ = nullptr;
  BusySpans* wait_overlay_ = nullptr;
};

}  // namespace edgetrain::sim
