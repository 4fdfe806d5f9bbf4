// A calibration of the flow model against the packet-level reference for one platform
// (`edgetrain calibrate`, applied by the scenario key network.calibration): per route class (the
// bandwidths and latencies of a route's links, in order) the TCP model (tcp_model.hpp) fitted to
// that class's lone transfers, continuous in the message size (slow start by round trips, the
// bandwidth-delay product, the receive window, headers), and one model fitted to every class for
// routes of no calibrated class. The file also keeps the before/after tables it was measured with
// (`report`), which say how far it holds: sizes drawn at random between the fitted ones, and rounds
// under several router queues.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "packet/tcp_model.hpp"
#include "util/input_error.hpp"

namespace edgetrain::packet {

// A calibration file that cannot be used: the message names the file and what is wrong.
class CalibrationError : public std::runtime_error, public util::InputError {
 public:
  using std::runtime_error::runtime_error;
};

// A route's links as (bandwidth in B/s, latency in s), in route order.
using RouteShape = std::vector<std::pair<double, double>>;

struct RouteClass {
  RouteShape links;
  std::string example;  // "pi-1 -> cloud": a route of this class
  TcpModel model;       // fitted to this class's lone transfers
};

struct Calibration {
  std::string platform;     // the file it was made for
  std::string fingerprint;  // of that platform's host and link names (network_calibration.hpp)
  TcpModel model;  // fitted to every class: for routes of none
  std::vector<RouteClass> classes;
  nlohmann::json report;  // what calibrate measured: points and concurrent rounds, before and after

  // The model of a route of this shape: its class's, or the one fitted to every class.
  const TcpModel& model_of(const RouteShape& route) const;
  // The seconds a lone transfer of `bytes` should take on a route of this shape.
  double target_s(double bytes, const RouteShape& route) const;
  // One-way latency and bottleneck bandwidth of a route.
  static std::pair<double, double> path_of(const RouteShape& route);

 private:
  mutable std::map<RouteShape, size_t> index_;  // built on first use
};

// Reads and checks a calibration file (CalibrationError naming the file and the problem).
Calibration read_calibration(const std::filesystem::path& file);
// The file's text.
std::string calibration_text(const Calibration& calibration);

}  // namespace edgetrain::packet
