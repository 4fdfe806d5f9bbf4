// The progress line printed while a run goes on (stderr, at most one line per second of
// wall time) and the summary printed at the end (stdout).
#pragma once

#include <chrono>
#include <string>

#include "report/run_record.hpp"

namespace edgetrain::report {

class Progress {
 public:
  explicit Progress(bool quiet) : quiet_(quiet) {}
  void on_eval(const EvalPoint& point);

 private:
  bool quiet_;
  std::chrono::steady_clock::time_point last_{};
};

// Human-readable bytes ("3.2 MB"), decimal units.
std::string human_bytes(double bytes);
std::string summary_text(const RunSummary& summary, const std::string& out_dir);

}  // namespace edgetrain::report
