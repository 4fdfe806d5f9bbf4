// Transfers timed under the flow model, in the engine calibrate loaded: each experiment's flows
// start together and alone on the network, one experiment after the other, once per model (CM02 as
// it is, the slow-start model at its defaults, the calibration).
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

// Per model, per experiment, per flow: seconds to deliver.
using FlowTimes = std::vector<std::vector<std::vector<double>>>;

// Runs the engine (once: SimGrid allows one run per process) with an actor that times every
// experiment under each of `models` in turn (null: CM02 as it is), through `hooks` (installed on
// the engine).
FlowTimes time_flows(simgrid::s4u::Engine& engine, NetworkCalibration& hooks,
                     const std::vector<const packet::Calibration*>& models, const std::vector<Experiment>& experiments);

}  // namespace edgetrain::sim
