// Fuzz target: calibration files (network.calibration, packet::read_calibration), then what a run
// asks of an accepted one: the target time of a transfer on each of its route classes.
// A file may be refused with CalibrationError; an accepted one must give finite, positive times.
// fuzz.sh: -max_len=8192
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "input_file.hpp"
#include "packet/calibration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto file = fuzz::write_input("calibration.json", data, size);
  try {
    const edgetrain::packet::Calibration c = edgetrain::packet::read_calibration(file);
    for (const auto& rc : c.classes) {
      for (double bytes : {1.0, 1e4, 1e6, 2e7}) {
        const double t = c.target_s(bytes, rc.links);
        if (!(std::isfinite(t) && t > 0)) {
          std::fprintf(stderr, "calibration_fuzz: a transfer of %g bytes takes %g s\n", bytes, t);
          std::abort();
        }
      }
    }
  } catch (const edgetrain::packet::CalibrationError&) {
  }
  return 0;
}
