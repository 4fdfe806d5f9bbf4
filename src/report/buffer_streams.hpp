// buffers.csv and buffers_fleet.csv, written while the run goes into the run's temporary folder
// (they move into place with the other results, report/results_dir.hpp): a row per device per
// report.buffer_every_s and a fleet row per report.buffer_every_s grow with simulated time, so
// none of it is kept in memory (a 10^6-second run kept about 350 MB before). What stays is one
// row per device (the latest, for the fleet sums).
#pragma once

#include <filesystem>
#include <vector>

#include "report/csv_stream.hpp"
#include "report/fleet_buffers.hpp"
#include "report/run_record.hpp"

namespace edgetrain::report {

class BufferStreams {
 public:
  explicit BufferStreams(double every_s = 1.0);
  // Starts both files in `folder` (the run's temporary folder); messages name them in `shown` (the
  // results folder as given) and end with `note` (what became of the previous results). Without
  // it (a validation) rows are dropped.
  void open(const std::filesystem::path& folder, const std::filesystem::path& shown, const std::string& note);
  // At most one row per device per every_s (the first state seen in each interval).
  void record(size_t device, const BufferPoint& point);  // device: index in the scenario
  void finish(size_t device, const BufferPoint& point);  // the final state, always kept
  // The fleet's last points up to `end_s`, then both files closed; throws OutputError.
  void close(double end_s);

 private:
  double every_s_;
  std::vector<double> last_time_;  // per device, -1 = none yet
  CsvStream buffers_, fleet_;
  FleetBufferSeries series_;
};

}  // namespace edgetrain::report
