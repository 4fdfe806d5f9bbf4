// summary.json's `fidelity` section: what a run's times rest on and how far they are expected to be
// from the world (docs/explanation/fidelity.md). Transfers: the network model, the calibration
// applied, and the expected error of a lone transfer of the dense message on each device's routes
// to and from the server: without a calibration, CM02's time against the slow-start TCP model
// (packet/tcp_model.hpp, which tracks ns-3 within the tolerance tests/packet states); with one, the
// errors its own before/after table measured. Steps: the compute model and profile, and the band
// src/compute gives. `validate` prints the lines, the report shows the first.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compute/roofline.hpp"
#include "packet/calibration.hpp"

namespace simgrid::s4u {
class Host;
}

namespace edgetrain::sim {

struct FidelityInput {
  std::string network_model;                         // SimGrid's network/model
  bool tcp_model = false;                            // the slow-start TCP model applied (network.model tcp)
  const packet::Calibration* calibration = nullptr;  // applied, or none
  std::string calibration_file;
  const simgrid::s4u::Host* server = nullptr;
  std::vector<const simgrid::s4u::Host*> devices;
  int64_t message_bytes = 0;  // the dense update with its header
  std::string model;          // scenario model.name
  std::vector<compute::Profile> profiles;  // training.compute_profile's, in use; empty: FLOPs / host speed
  std::string profile_file;                // the profile's file, when it came from one
};

nlohmann::json fidelity_json(const FidelityInput& in);
// Two lines: transfers, steps.
std::string fidelity_text(const nlohmann::json& fidelity);

}  // namespace edgetrain::sim
