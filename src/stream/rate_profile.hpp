// A piecewise-constant arrival rate over simulated time, with its cumulative intensity
// Lambda(t) = integral of rate from 0 to t and the inverse, so arrival counts and arrival
// times are computed analytically, with no event per sample.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/limits.hpp"

namespace edgetrain::stream {

class RateProfile {
 public:
  static RateProfile constant(double rate);  // 0 < rate <= util::kMaxRate
  // Rows "time_s,rate" (a header line is allowed), times starting at 0 and increasing by at least
  // util::kClockResolutionS, at most util::kMaxTimeS; rates in [0, max_value], the last rate > 0
  // (a stream that stops forever would stall training). The last rate holds after the last time.
  // Blank lines and lines starting with '#' are skipped. Throws StreamError naming the file and
  // line ("trace.csv:3: times must increase strictly (2 after 5)"). `value` names the second
  // column in messages (a link's bandwidth trace reads "bandwidth_bps", with its own max_value).
  static RateProfile from_trace_csv(const std::filesystem::path& file, const std::string& value = "rate",
                                    double max_value = util::kMaxRate);
  // The same rules on a trace's text; `name` stands for the file in messages.
  static RateProfile from_trace_text(std::string_view text, const std::string& name, const std::string& value = "rate",
                                     double max_value = util::kMaxRate);
  static RateProfile from_steps(std::vector<double> times_s, std::vector<double> rates);  // same checks

  // Times before 0 count as 0.
  double rate_at(double t) const;
  double cumulative(double t) const;  // Lambda(t), samples expected by time t
  double inverse(double u) const;     // smallest t with Lambda(t) >= u (u >= 0)
  // The nominal rate used to size batches: the time-average over the trace's span (its last
  // step counted for the same length as the mean step), or the constant rate.
  double nominal_rate() const;
  // Times at which the rate changes (after 0): the step starts but the first.
  std::vector<double> breakpoints() const { return {times_.begin() + 1, times_.end()}; }

  // The steps themselves: step i has rate step_rate(i) on [step_start(i), step_start(i + 1)),
  // the last one forever; step_cumulative(i) = Lambda(step_start(i)).
  size_t step_count() const { return times_.size(); }
  double step_start(size_t i) const { return times_[i]; }
  double step_rate(size_t i) const { return rates_[i]; }
  double step_cumulative(size_t i) const { return cumulative_[i]; }
  size_t step_at(double t) const;        // the step holding time t (t >= 0)
  size_t step_reaching(double u) const;  // the step in which Lambda first reaches u > 0
  // The time at which Lambda reaches u within step i (rate > 0), kept inside the step.
  double step_inverse(size_t i, double u) const;

 private:
  RateProfile() = default;
  static RateProfile from_valid_steps(std::vector<double> times_s, std::vector<double> rates);  // checks done
  std::vector<double> times_;       // step start times, times_[0] == 0
  std::vector<double> rates_;       // rate on [times_[i], times_[i+1])
  std::vector<double> cumulative_;  // Lambda(times_[i])
};

}  // namespace edgetrain::stream
