// See step_charges.hpp.
#include "sim/core/step_charges.hpp"

#include <simgrid/s4u/Host.hpp>

#include "compute/devices.hpp"
#include "compute/profile_file.hpp"
#include "sim/core/host_slots.hpp"
#include "sim/core/platform.hpp"

namespace edgetrain::sim {

namespace {

constexpr const char* kProfileProperty = "compute_profile";

// The device class a host's (or a population's record's) `compute_profile` property names.
const compute::Profile& host_profile(const std::string& host, const char* name) {
  if (!name) {
    throw PlatformError("training.compute_profile: \"host\", but host " + host + " has no `" + kProfileProperty +
                        "` property naming its device class");
  }
  const compute::DeviceClass* d = compute::find_device(name);
  if (!d) {
    std::string known;
    for (const compute::DeviceClass& c : compute::device_classes()) known += (known.empty() ? "" : ", ") + c.profile.name;
    throw PlatformError("host " + host + ": `" + kProfileProperty + "` \"" + name + "\" is not a device class (one of " +
                        known + ")");
  }
  return d->profile;
}

// A population's device: its class's property.
const char* class_property(const scenario::Population& p, size_t device, const char* key) {
  const auto& properties = p.spec.classes[p.fleet.devices[device].class_index].properties;
  const auto it = properties.find(key);
  return it == properties.end() ? nullptr : it->second.c_str();
}

}  // namespace

StepCharges::StepCharges(const scenario::Scenario& scenario, const backend::ModelCost& cost,
                         const std::vector<simgrid::s4u::Host*>& devices,
                         const std::vector<std::optional<double>>& traced_speed, const HostSlots* slots)
    : cost_(&cost), passes_(scenario.strategy ? scenario.strategy->passes_per_step() : 1), traced_speed_(traced_speed) {
  const scenario::TrainingSpec& t = scenario.training;
  const size_t n = scenario.devices.size();
  for (size_t i = 0; i < n; ++i) host_speed_.push_back(slots ? slots->speed(i) : devices[i]->get_speed());
  if (!t.compute_profile_file.empty()) {
    profiles_.push_back(compute::read_profile_file(t.compute_profile_file.string()));
    from_file_ = true;
  } else if (!t.compute_profile.empty() && t.compute_profile != "host") {
    profiles_.push_back(compute::find_device(t.compute_profile)->profile);  // the key's choices are the classes
  } else if (t.compute_profile == "host") {
    for (size_t i = 0; i < n; ++i) {
      const compute::Profile& p =
          slots ? host_profile(scenario.devices[i].name, class_property(*scenario.population, i, kProfileProperty))
                : host_profile(devices[i]->get_name(), devices[i]->get_property(kProfileProperty));
      size_t k = 0;
      while (k < profiles_.size() && profiles_[k].name != p.name) ++k;
      if (k == profiles_.size()) profiles_.push_back(p);
      profile_of_.push_back(k);
    }
  }
  step_s_.resize(profiles_.size());
}

double StepCharges::flops(size_t device, int64_t samples) const { return static_cast<double>(passes_) * pass_flops(device, samples); }

double StepCharges::pass_flops(size_t device, int64_t samples) const {
  const double model_flops = cost_->step_flops_per_sample * static_cast<double>(samples);
  // A traced speed: the FLOPs that last, on the host's own speed, as long as the step at the trace's.
  if (const std::optional<double>& traced = trace_of(traced_speed_, device))
    return model_flops * host_speed_[device] / *traced;
  if (profiles_.empty()) return model_flops;
  const size_t p = profile_of_.empty() ? 0 : profile_of_[device];
  auto [at, fresh] = step_s_[p].try_emplace(samples, 0.0);
  if (fresh) at->second = compute::step_cost(cost_->compute_layers, samples, profiles_[p]).step_s;
  return at->second * host_speed_[device];
}

}  // namespace edgetrain::sim
