// A population's outputs (population.hosts "slots"): devices.csv keeps the devices that took part in a
// round, and population.csv sums every device, per class and per site, so that nothing written is
// O(population) rows unless the population took part.
#pragma once

#include <string>
#include <vector>

#include "report/run_record.hpp"

namespace edgetrain::report {

// population.csv: a row per class, per site (DeviceRecord::host of a population's device) and one for
// the whole population ("all"), each with the devices, those that took part, and the sums of their
// rounds, steps, samples, time buckets and bytes.
std::string population_csv(const std::vector<DeviceRecord>& devices);

}  // namespace edgetrain::report
