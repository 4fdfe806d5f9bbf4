// The live progress line of a run on a terminal, and the summary printed at the end (stdout).
// The line sits on stderr and is rewritten in place ("\r") at most kRedrawsPerSecond times per
// second of wall time: simulated time, rounds (pushes in asynchronous modes), the last test
// accuracy, wall time and the time left, estimated from the stop condition nearest to its end
// (stop.rounds or stop.sim_time_s; "?" while none bounds it or 1% of it is not done yet). It is drawn only when stderr is a
// terminal and the run is not --quiet: pipes, files and CI get no progress output at all.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "report/run_record.hpp"

namespace edgetrain::report {

// What bounds a run and how its updates are counted: fixed before it starts.
struct ProgressLimits {
  bool pushes = false;               // updates are single devices' pushes (asynchronous modes), not rounds
  bool evaluates = true;             // the run measures test accuracy (not a timing-only run)
  std::optional<int64_t> rounds;     // stop.rounds
  std::optional<double> sim_time_s;  // stop.sim_time_s
};

// Where a run is now.
struct ProgressPoint {
  double sim_time_s = 0;
  int64_t updates = 0;                  // rounds or pushes applied
  std::optional<double> test_accuracy;  // the last evaluation's; empty before the first
};

class Progress {
 public:
  static constexpr int kRedrawsPerSecond = 4;
  // The time left is estimated once this fraction of a stop condition is done ("?" before).
  static constexpr double kMinDoneForEstimate = 0.01;
  // `enabled`: draw at all (stderr is a terminal, no --quiet). `json_fd` >= 0: also write each
  // update, at the same rate, as one JSON line to that file descriptor (--progress-fd, for programs
  // that drive edgetrain): {"sim_time_s", "updates", "pushes", "rounds", "sim_time_limit_s",
  // "test_accuracy", "wall_s", "left_s"}, null where the line shows "-" or "?". Wall time counts
  // from construction.
  Progress(bool enabled, const ProgressLimits& limits, int json_fd = -1);
  ~Progress();  // clears the line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_ || json_fd_ >= 0; }
  // Redraws the line with `point` unless it was drawn less than 1 / kRedrawsPerSecond s ago.
  void update(const ProgressPoint& point);
  // Erases the line, leaving the cursor at the start of an empty line (before the summary).
  void clear();

  // The text of the line after `wall_s` seconds of wall time, before fitting it to the terminal.
  static std::string line(const ProgressPoint& point, const ProgressLimits& limits, double wall_s);
  // The estimated wall time left, in seconds: the elapsed wall time scaled by what is left of the
  // stop condition nearest to its end. Empty when no condition bounds the run or less than
  // kMinDoneForEstimate of it is done.
  static std::optional<double> time_left_s(const ProgressPoint& point, const ProgressLimits& limits, double wall_s);
  // The JSON line (without its newline) of `point` after `wall_s` seconds.
  static std::string json_line(const ProgressPoint& point, const ProgressLimits& limits, double wall_s);

 private:
  // Writes a JSON line to json_fd_; false when its reader is gone.
  bool write_json(const std::string& text) const;

  bool enabled_;
  int json_fd_;
  ProgressLimits limits_;
  std::chrono::steady_clock::time_point start_, last_{};
  size_t shown_ = 0;  // characters of the line on the terminal now
};

// Whether stderr is a terminal (the progress line is drawn only there).
bool stderr_is_terminal();

// "45 s", "3 min 05 s", "2 h 07 min".
std::string human_duration(double seconds);
// Human-readable bytes ("3.2 MB"), decimal units.
std::string human_bytes(double bytes);
// What a run prints at its end: status, rounds and times (with round_s when the run had rounds),
// accuracy, bytes (by level too in runs with sites), the results folder.
std::string summary_text(const RunSummary& summary, const std::string& out_dir);

}  // namespace edgetrain::report
