// Transfers timed under the flow model, in the engine calibrate loaded: each experiment's flows
// start together and alone on the network, one experiment after the other, first with the
// calibration off (CM02 as it is) and then on.
#pragma once

#include <cstdint>
#include <vector>

#include "packet/calibration.hpp"

namespace simgrid::s4u {
class Engine;
class Host;
}  // namespace simgrid::s4u

namespace edgetrain::sim {

class NetworkCalibration;

struct Flow {
  simgrid::s4u::Host *from, *to;
  int64_t bytes;
};
using Experiment = std::vector<Flow>;

struct FlowTimes {
  std::vector<std::vector<double>> before, after;  // per experiment, per flow: seconds to deliver
};

// Runs the engine (once: SimGrid allows one run per process) with an actor that times every
// experiment without and then with `calibration`, through `hooks` (installed on the engine).
FlowTimes time_flows(simgrid::s4u::Engine& engine, NetworkCalibration& hooks, const packet::Calibration& calibration,
                     const std::vector<Experiment>& experiments);

}  // namespace edgetrain::sim
