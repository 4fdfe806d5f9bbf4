// The scenario's device traces (traces.*) turned into what the run uses: each device's off
// intervals as a fault plan (the gaps between its on intervals, played by the fault injector
// exactly as faults.devices), the compute speed its capacity row gives it (StepCharges charges
// its steps at that speed), and its access links set to the row's bandwidth.
//
// The capacity row's `compute_ms_per_sample` is FedScale's: a forward pass of the trace's
// reference model (traces.reference_model). As FedScale, a training step costs three times it per
// sample; as edgetrain's FLOP model, a model with more training FLOPs per sample takes
// proportionally longer. So the device's speed is reference training FLOPs / (3 x ms / 1000),
// and a step of B samples lasts step FLOPs x B / that speed. Its access links are the first link
// of its route to the server and the last link of the route back; both take bandwidth_kbps
// (FedScale has one figure for both directions).
#pragma once

#include <optional>
#include <vector>

#include "learn/partition.hpp"
#include "scenario/scenario.hpp"

namespace simgrid::s4u {
class Host;
}

namespace edgetrain::sim {

// Each vector is empty when no device has such a trace (a population of millions without traces holds
// nothing here), else has an entry per device.
struct DeviceTraces {
  // Per device: the fault plan of its availability row (none: always on).
  std::vector<std::optional<scenario::DeviceFaultSpec>> availability;
  // Per device: its speed (flop/s) and access bandwidth (bit/s) from the capacity trace (none: the platform's).
  std::vector<std::optional<double>> speed_flops, bandwidth_bps;
};

// Device `i`'s entry of one of DeviceTraces' vectors, the vector being empty when no device has one.
template <class T>
const std::optional<T>& trace_of(const std::vector<std::optional<T>>& per_device, size_t i) {
  static const std::optional<T> none;
  return i < per_device.size() ? per_device[i] : none;
}

// Reads the trace files and assigns their rows (scenario/trace_assign.hpp) by each device's training
// samples (`parts`). Without traces.availability, a device whose host (or a population's record) carries
// `availability_on_s` (a fleet class's availability trace, fleet/spec.hpp) follows it. Throws
// ScenarioError or PlatformError (one line).
DeviceTraces plan_device_traces(const scenario::Scenario& scenario, const learn::DeviceParts& parts,
                                const std::vector<simgrid::s4u::Host*>& hosts);

// Sets each traced device's access links (up and down) to its bandwidth. Throws PlatformError when a
// device has no link to the server or shares an access link with another device.
void apply_trace_bandwidths(const DeviceTraces& traces, const scenario::Scenario& scenario,
                            const std::vector<simgrid::s4u::Host*>& devices, simgrid::s4u::Host* server);

}  // namespace edgetrain::sim
