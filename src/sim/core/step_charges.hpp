// What one training step costs each device, as the FLOPs SimGrid executes on its host
// (training.compute_profile): without a profile, the model's training FLOPs, so the host's speed
// decides the time; with one, the roofline time of the model's layers on that device class
// (src/compute) times the host's speed, so the profile decides it whatever the platform says.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend/learner.hpp"
#include "compute/roofline.hpp"
#include "scenario/scenario.hpp"
#include "sim/core/device_traces.hpp"
#include "strategy/split_plan.hpp"

namespace simgrid::s4u {
class Host;
}

namespace edgetrain::sim {

class HostSlots;

class StepCharges {
 public:
  // Throws PlatformError (one line) when training.compute_profile is "host" and a device's host has
  // no `compute_profile` property naming a device class, and ProfileFileError for a bad file.
  // `traced_speed`, per device (or empty): the speed its capacity trace row gives it (traces.capacity,
  // sim/core/device_traces.hpp), which its steps are charged at instead of its host's.
  // `slots`: a population's (host_slots.hpp), whose records give each device's speed and class
  // properties in place of `devices` (then empty).
  StepCharges(const scenario::Scenario& scenario, const backend::ModelCost& cost,
              const std::vector<simgrid::s4u::Host*>& devices,
              const std::vector<std::optional<double>>& traced_speed = {}, const HostSlots* slots = nullptr);

  // A local step's FLOPs: its training passes (ditto's two) of the model on `samples` samples.
  double flops(size_t device, int64_t samples) const;
  // The flop/s its steps are charged at: its trace's speed, else its host's.
  double speed(size_t device) const { return trace_of(traced_speed_, device).value_or(host_speed_[device]); }
  // The flop/s of one core of its host (a population's device: of the host it would have).
  double host_speed(size_t device) const { return host_speed_[device]; }
  // The profiles in use, in the order devices first use them; empty: FLOPs / host speed.
  const std::vector<compute::Profile>& profiles() const { return profiles_; }
  bool from_file() const { return from_file_; }
  // Split learning (splitfed): the cut, whose device part `cost` was; null otherwise. Its server part runs
  // on the server's host at that host's speed (a compute profile describes devices).
  void set_split(const strategy::SplitPlan* plan) { split_ = plan; }
  const strategy::SplitPlan* split() const { return split_; }

 private:
  double pass_flops(size_t device, int64_t samples) const;

  const backend::ModelCost* cost_;
  int64_t passes_;  // per step
  std::vector<compute::Profile> profiles_;
  std::vector<size_t> profile_of_;  // per device, into profiles_ (empty: every device has profile 0, or none)
  std::vector<double> host_speed_;  // per device: flop/s of one core
  std::vector<std::optional<double>> traced_speed_;  // per device (or empty): the capacity trace's flop/s
  bool from_file_ = false;
  const strategy::SplitPlan* split_ = nullptr;
  // Per profile: step seconds by batch (batches repeat; scadles batches vary).
  mutable std::vector<std::map<int64_t, double>> step_s_;
};

}  // namespace edgetrain::sim
