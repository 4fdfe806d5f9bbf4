// Piecewise-constant rates: validation of steps and traces, Lambda(t) and its inverse (see rate_profile.hpp).
#include "stream/rate_profile.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "stream/rates.hpp"
#include "util/csv_lines.hpp"
#include "util/format.hpp"
#include "util/limits.hpp"
#include "util/read_input.hpp"

namespace edgetrain::stream {

using util::format_number;

namespace {

// One step to validate, with where it came from ("trace.csv:3" or "rate steps[2]") for messages.
struct Row {
  double time, rate;
  std::string where;
};

void fail(const Row& row, const std::string& message) { throw StreamError(row.where + ": " + message); }

// `value`: what the second column holds, for messages ("rate", "bandwidth_bps"); `max_value` its bound.
// Times step by at least the simulator's clock resolution and end by the longest simulated time,
// so that every step is a point the clock can reach.
void validate(const std::vector<Row>& rows, const std::string& source, const std::string& value, double max_value) {
  if (rows.empty()) throw StreamError(source + ": no " + value + " steps (expected rows \"time_s," + value + "\")");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (!std::isfinite(r.time)) fail(r, "time must be a finite number, got " + format_number(r.time));
    if (!std::isfinite(r.rate)) fail(r, value + " must be a finite number, got " + format_number(r.rate));
    if (i == 0 && r.time != 0) fail(r, "the first time must be 0, got " + format_number(r.time));
    if (i > 0 && !(r.time > rows[i - 1].time))
      fail(r, "times must increase strictly (" + format_number(r.time) + " after " + format_number(rows[i - 1].time) +
                  ")");
    if (i > 0 && r.time - rows[i - 1].time < util::kClockResolutionS)
      fail(r, "times must be at least 1us apart (the simulator's clock resolution), got " + format_number(r.time) +
                  " after " + format_number(rows[i - 1].time));
    if (r.time > util::kMaxTimeS)
      fail(r, "time must be at most " + format_number(util::kMaxTimeS) + " s (the longest simulated time), got " +
                  format_number(r.time));
    if (r.rate < 0) fail(r, value + " must be >= 0, got " + format_number(r.rate));
    if (r.rate > max_value)
      fail(r, value + " must be at most " + format_number(max_value) + ", got " + format_number(r.rate));
  }
  // The last value holds forever: at least kMinRate (a sample, a bit, within the longest run).
  if (!(rows.back().rate >= util::kMinRate))
    fail(rows.back(),
         "the last " + value + " must be at least " + format_number(util::kMinRate) +
             " (it holds forever after the last time), got " +
             format_number(rows.back().rate));
}

}  // namespace

RateProfile RateProfile::constant(double rate) {
  if (!std::isfinite(rate) || !(rate > 0))
    throw StreamError("stream rate: a constant rate must be a finite number > 0, got " + format_number(rate));
  if (rate > util::kMaxRate || rate < util::kMinRate)
    throw StreamError("stream rate: a constant rate must be from " + format_number(util::kMinRate) + " to " +
                      format_number(util::kMaxRate) + ", got " + format_number(rate));
  return from_steps({0.0}, {rate});
}

RateProfile RateProfile::from_steps(std::vector<double> times_s, std::vector<double> rates) {
  if (times_s.size() != rates.size())
    throw StreamError("rate steps: " + std::to_string(times_s.size()) + " times but " + std::to_string(rates.size()) +
                      " rates");
  std::vector<Row> rows;
  for (size_t i = 0; i < times_s.size(); ++i)
    rows.push_back({times_s[i], rates[i], "rate steps[" + std::to_string(i) + "]"});
  validate(rows, "rate steps", "rate", util::kMaxRate);
  return from_valid_steps(std::move(times_s), std::move(rates));
}

RateProfile RateProfile::from_valid_steps(std::vector<double> times_s, std::vector<double> rates) {
  RateProfile p;
  p.times_ = std::move(times_s);
  p.rates_ = std::move(rates);
  p.cumulative_.assign(p.times_.size(), 0.0);
  for (size_t i = 1; i < p.times_.size(); ++i)
    p.cumulative_[i] = p.cumulative_[i - 1] + p.rates_[i - 1] * (p.times_[i] - p.times_[i - 1]);
  return p;
}

RateProfile RateProfile::from_trace_csv(const std::filesystem::path& file, const std::string& value, double max_value) {
  const std::string name = file.string();
  return from_trace_text(util::read_input_as<StreamError>(file, util::kTraceInput), name, value, max_value);
}

RateProfile RateProfile::from_trace_text(std::string_view content, const std::string& name, const std::string& value,
                                         double max_value) {
  std::vector<Row> rows;
  for (const util::CsvLine& line : util::csv_lines(content)) {
    const std::string where = name + ":" + std::to_string(line.number);
    double t = 0, r = 0;
    if (line.fields.size() == 2 && util::parse_number(line.fields[0], t) && util::parse_number(line.fields[1], r)) {
      rows.push_back({t, r, where});
      continue;
    }
    throw StreamError(where + ": expected \"time_s," + value + "\" (two numbers), got \"" + util::quoted_line(line.text) +
                      "\"");
  }
  validate(rows, name, value, max_value);

  std::vector<double> times, rates;
  for (const Row& r : rows) times.push_back(r.time), rates.push_back(r.rate);
  return from_valid_steps(std::move(times), std::move(rates));
}

size_t RateProfile::step_at(double t) const {
  const auto it = std::upper_bound(times_.begin(), times_.end(), t);
  return it == times_.begin() ? 0 : static_cast<size_t>(it - times_.begin()) - 1;
}

size_t RateProfile::step_reaching(double u) const {
  if (!(u > 0)) return 0;
  // First j with Lambda(times_[j]) >= u: u is reached inside step j - 1, whose rate is then > 0.
  const auto it = std::lower_bound(cumulative_.begin(), cumulative_.end(), u);
  return static_cast<size_t>(it - cumulative_.begin()) - 1;
}

double RateProfile::rate_at(double t) const { return rates_[step_at(t)]; }

double RateProfile::cumulative(double t) const {
  if (std::isnan(t)) throw StreamError("rate profile: Lambda(t) of a time that is not a number");
  if (t <= 0) return 0;
  const size_t i = step_at(t);
  return cumulative_[i] + rates_[i] * (t - times_[i]);
}

double RateProfile::inverse(double u) const {
  if (std::isnan(u)) throw StreamError("rate profile: inverse of an intensity that is not a number");
  if (u <= 0) return 0;
  return step_inverse(step_reaching(u), u);
}

double RateProfile::step_inverse(size_t i, double u) const {
  double t = times_[i] + (u - cumulative_[i]) / rates_[i];
  // Rounding must not push the time past the step's end: keeps the inverse monotone across steps.
  if (i + 1 < times_.size()) t = std::min(t, times_[i + 1]);
  return std::max(t, times_[i]);
}

double RateProfile::nominal_rate() const {
  if (times_.size() == 1) return rates_[0];
  const double span = times_.back();
  const double mean_step = span / static_cast<double>(times_.size() - 1);
  return (cumulative_.back() + rates_.back() * mean_step) / (span + mean_step);
}

}  // namespace edgetrain::stream
