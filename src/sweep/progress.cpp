// See progress.hpp.
#include "sweep/progress.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace edgetrain::sweep {
namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

Progress::Progress(std::ostream& out, bool live, size_t total, size_t done, size_t jobs)
    : out_(out), live_(live), total_(total), done_(done), jobs_(std::max<size_t>(1, jobs)) {}

std::string Progress::duration_text(double s) {
  const long t = std::lround(std::max(0.0, s));
  char buf[48];
  if (t >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld h %02ld min", t / 3600, t / 60 % 60);
  } else if (t >= 60) {
    std::snprintf(buf, sizeof buf, "%ld min %02ld s", t / 60, t % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ld s", t);
  }
  return buf;
}

double Progress::time_left(double mean_s, size_t not_started, const std::vector<double>& running_s, size_t jobs) {
  if (mean_s < 0) return -1;
  double work = mean_s * static_cast<double>(not_started);
  for (double r : running_s) work += std::max(0.0, mean_s - r);
  return work / static_cast<double>(std::max<size_t>(1, jobs));
}

void Progress::started() {
  ++running_;
  if (live_) draw(running_s_);
}

void Progress::ended(bool failed, double wall_s, const std::string& line) {
  --running_;
  ++done_;
  ++ended_;
  failed_ += failed ? 1 : 0;
  wall_sum_ += wall_s;
  if (live_) {
    // A failure is worth a line of its own above the live line: the table comes only at the end.
    if (failed) out_ << "\r" << std::string(width_, ' ') << "\r" << line << "\n";
    draw(running_s_);
  } else {
    out_ << "[" << done_ << "/" << total_ << "] " << line << "\n" << std::flush;
  }
}

void Progress::tick(const std::vector<double>& running_s) {
  running_s_ = running_s;
  if (live_ && now_s() - last_draw_ >= 1) draw(running_s);
}

void Progress::draw(const std::vector<double>& running_s) {
  last_draw_ = now_s();
  const size_t not_started = total_ - done_ - running_;
  const double left = time_left(ended_ ? wall_sum_ / static_cast<double>(ended_) : -1, not_started, running_s, jobs_);
  std::string line = "sweep: " + std::to_string(done_) + "/" + std::to_string(total_) + " done, " +
                     std::to_string(running_) + " running, " + std::to_string(failed_) + " failed, time left " +
                     (left < 0 ? std::string("?") : "~" + duration_text(left));
  const size_t width = line.size();
  if (width < width_) line += std::string(width_ - width, ' ');  // erase the end of a longer line
  width_ = width;
  out_ << "\r" << line << std::flush;
}

void Progress::close() {
  if (live_ && width_ > 0) out_ << "\n" << std::flush;
  width_ = 0;
}

}  // namespace edgetrain::sweep
