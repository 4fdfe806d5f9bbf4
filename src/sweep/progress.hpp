// The sweep's progress. On a terminal one line, redrawn in place: runs done, running, failed and
// the total, and the time left, estimated from the wall time of the runs finished so far. In a
// pipe one line per finished run, nothing redrawn. Failed runs get their line on a terminal too.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace edgetrain::sweep {

class Progress {
 public:
  // `total` distinct runs, of which `done` are already finished; `jobs` at a time.
  Progress(std::ostream& out, bool live, size_t total, size_t done, size_t jobs);
  void started();
  // `line`: what to print for the run in a pipe (its id, status, overrides).
  void ended(bool failed, double wall_s, const std::string& line);
  void tick(const std::vector<double>& running_s);  // redraws the live line at most once a second
  void close();                                     // ends the live line

  // "1 h 02 min", "3 min 20 s", "12 s".
  static std::string duration_text(double s);
  // The time left: runs not started cost the mean of the finished ones, running ones what they
  // have left of it, all spread over `jobs`. Negative when nothing finished yet (unknown).
  static double time_left(double mean_s, size_t not_started, const std::vector<double>& running_s, size_t jobs);

 private:
  void draw(const std::vector<double>& running_s);
  std::ostream& out_;
  bool live_;
  size_t total_, done_, jobs_, running_ = 0, failed_ = 0, ended_ = 0;
  double wall_sum_ = 0, last_draw_ = -1;
  std::vector<double> running_s_;
  size_t width_ = 0;  // of the last live line drawn
};

}  // namespace edgetrain::sweep
