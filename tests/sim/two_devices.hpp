// The hand-computed model of tests/sim/data/two-devices.{json,xml}, shared by the whole-run
// tests: values from the platform and scenario files, and a runner that fails the test case
// (printing edgetrain's stderr) if the run does not exit 0.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "cli_helpers.hpp"

namespace test {

constexpr double kParams = 8 * 8 * 16 + 16 + 16 * 4 + 4;                // mlp 64-16-4: 1108
constexpr double kStepFlops = 3 * (2 * 64 * 16 + 16 + 2 * 16 * 4 + 4);  // per sample
constexpr double kBatch = 8, kRounds = 6, kHeader = 64;
constexpr double kDenseMessage = 4 * kParams + kHeader;  // fp32 payload + header

struct Link {
  double latency_s, bandwidth_Bps;
};
struct Device {
  const char* name;
  double speed_flops;
  Link up, down;
};
constexpr Device kDevices[] = {{"dev-a", 1e9, {0.010, 1e6}, {0.010, 4e6}}, {"dev-b", 2e9, {0.005, 2e6}, {0.005, 8e6}}};

// CM02: a lone transfer takes latency + size / bandwidth.
inline double transfer_s(const Link& l, double bytes = kDenseMessage) { return l.latency_s + bytes / l.bandwidth_Bps; }
inline double compute_s(const Device& d, double batch = kBatch) { return kStepFlops * batch / d.speed_flops; }
// The server's averaging and SGD update for `devices` gradients, on its 10 GFLOP/s host.
inline double apply_s(int devices) { return kParams * (devices + 5) / 10e9; }

inline fs::path run_two_devices(const std::string& tag, const std::string& sets = "") {
  return run_ok("two-devices.json", sets, tag);
}

}  // namespace test
