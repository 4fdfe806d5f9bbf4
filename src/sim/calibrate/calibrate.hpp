// `edgetrain calibrate`: a platform's route classes timed under ns-3's TCP (single flows from 10 KB
// to 20 MB at fitted sizes, checkpoints and sizes drawn at random between them; whole rounds of
// concurrent flows to and from one host under every router queue of the spread), the slow-start
// TCP model's rate fitted per class to the fitted sizes, then every point timed again under the flow
// model as CM02, as the default model and calibrated: the table travels in the file, with the
// reference anomalies and what the measurements cover.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "packet/calibration.hpp"

namespace edgetrain::sim {

struct CalibrateOptions {
  std::filesystem::path platform;
  std::string server;                     // empty: every pair of hosts (small platforms only)
  std::vector<std::string> simgrid_args;  // --cfg=... passed through
  bool quiet = false;
  // The largest message measured: a platform whose messages are small needs no 20 MB points, and
  // ns-3's time grows with the bytes replayed.
  double max_bytes = 2e7;
};

// Sizes fitted, and checkpoints kept out of the fit to check it (bytes).
const std::vector<double>& fitted_sizes();
const std::vector<double>& held_out_sizes();

// Throws platform errors and packet::MappingError (input errors) naming what is wrong.
packet::Calibration calibrate_platform(const CalibrateOptions& options);

// The before/after table of a calibration's report, for the terminal.
std::string calibration_summary(const packet::Calibration& calibration);

}  // namespace edgetrain::sim
