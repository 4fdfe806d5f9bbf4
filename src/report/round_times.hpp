// summary.json's `round_s`: how long a round of the run took (mean, median, p95, max), the figure
// capacity planners read instead of dividing sim_time_s by rounds. Percentiles are nearest-rank:
// the p-quantile of n sorted values is the value at rank ceil(p n) (1-based), so it is always one
// of the measured durations; the median of an even count is the lower of the two middle values.
// What a round is depends on the run (run.cpp says which durations it passes).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

namespace edgetrain::report {

// The nearest-rank p-quantile (0 < p <= 1) of `sorted` (ascending, not empty).
template <class T>
T nearest_rank(const std::vector<T>& sorted, double p);

// {"mean", "median", "p95", "max", "count"} of `durations_s` (any order); null when empty.
nlohmann::json round_summary(std::vector<double> durations_s);

// The gaps between successive times `ends_s` (ascending), the first measured from `start_s`.
std::vector<double> gaps(const std::vector<double>& ends_s, double start_s);

}  // namespace edgetrain::report
