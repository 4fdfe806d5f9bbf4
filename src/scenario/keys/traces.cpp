// See traces.hpp.
#include "scenario/keys/traces.hpp"

#include <string>

#include "learn/catalogue.hpp"
#include "scenario/error.hpp"
#include "scenario/keys/faults.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {
namespace {

std::vector<std::string> reference_choices() {
  std::vector<std::string> out;
  for (std::string_view n : learn::catalogue_names()) out.emplace_back(n);
  return out;
}

bool given(const nlohmann::json& r, const char* key) {
  const auto& t = r.at("traces");
  return !t.is_null() && !t.at(key).is_null();
}

// traces.availability switches devices off as faults.devices does: the same needs and limits.
void availability_limits(const nlohmann::json& r) {
  if (!given(r, "availability")) return;
  if (!fault_entries(r, "devices").empty()) {
    throw ScenarioError(
        "traces.availability: not with faults.devices (a device's on and off times come from one of them; set "
        "faults.devices to null or put the off intervals in the trace)");
  }
  if (r.at("topology").at("kind") == "gossip") {
    throw ScenarioError("traces.availability: topology.kind gossip does not support devices that go off");
  }
  const auto& c = r.at("compression");
  if (!c.is_null() && !c.at("downlink").is_null()) {
    throw ScenarioError(
        "traces.availability: not supported with compression.downlink: a device that comes back has lost its model "
        "copy, which the downlink deltas update (set compression.downlink to null)");
  }
  const auto& t = r.at("training");
  const auto& mode = t.at("mode").get_ref<const std::string&>();
  if (!applies_on_arrival(t) && t.at("round_timeout_s").is_null()) {
    throw ScenarioError("training.round_timeout_s: required in synchronous rounds (training.mode " + mode +
                        ") with traces.availability (without it a round waits for every device, however long one is "
                        "off)");
  }
}

}  // namespace

std::vector<KeySpec> trace_rows() {
  return {
      section_key("traces",
                  "Device traces: when each device is on, and its compute and access bandwidth, from CSV files "
                  "(docs/how-to/device-traces.md).")
          .null_default("no traces: devices always on, at the platform's speeds and links")
          .fills(&Scenario::traces),
      path_key("traces.availability", PathKind::File,
               "CSV file of `device,start_s,end_s` rows (header allowed): the intervals in which each device is on; "
               "outside them it is off, exactly as a `faults.devices` entry switches it off. Under `assign` name, a "
               "device without rows is always on.")
          .null_default("always on")
          .fills(&Scenario::traces, &TracesSpec::availability),
      path_key("traces.capacity", PathKind::File,
               "CSV file of `device,compute_ms_per_sample,bandwidth_kbps` rows (header allowed; FedScale's fields): "
               "each device's step time (3 x ms per sample x batch, scaled by the model's training FLOPs over "
               "`reference_model`'s) and the bandwidth of its access links, both directions, instead of the "
               "platform's.")
          .null_default("the platform's speeds and links")
          .fills(&Scenario::traces, &TracesSpec::capacity),
      enum_key("traces.assign", {"name", "order", "random", "most-data-fastest", "most-data-slowest"},
               "How trace rows meet devices: name = the `device` column is the device's name; order = the trace's "
               "devices in file order, the first to the first device; random = a seeded draw without replacement; "
               "most-data-fastest / most-data-slowest = the devices with the most training samples get the fastest "
               "(slowest) capacity rows and the longest (shortest) total on time.")
          .def("name")
          .fills(&Scenario::traces, &TracesSpec::assign),
      enum_key("traces.reference_model", reference_choices(),
               "The catalogue model the capacity trace's ms per sample were measured on (FedScale's: AI Benchmark's "
               "inference tasks; we take MobileNetV2 at 224x224): a step's time scales by the run model's training "
               "FLOPs per sample over this one's.")
          .def("mobilenet_v2")
          .fills(&Scenario::traces, &TracesSpec::reference_model),
  };
}

std::vector<Rule> trace_rules() {
  return {
      {"traces", "Gives `availability`, `capacity` or both.",
       [](const nlohmann::json& r) {
         if (r.at("traces").is_null() || given(r, "availability") || given(r, "capacity")) return;
         throw ScenarioError(
             "traces: give availability (when devices are on), capacity (their speed and bandwidth), "
             "or both (or set traces to null)");
       }},
      {"traces.availability",
       "Not with `faults.devices`, `compression.downlink` or a gossip topology; synchronous rounds need "
       "`training.round_timeout_s`.",
       availability_limits},
      {"traces.capacity", "Not with `training.compute_profile` or `compute_profile_file`: a step has one cost.",
       [](const nlohmann::json& r) {
         if (!given(r, "capacity")) return;
         const auto& t = r.at("training");
         for (const char* k : {"compute_profile", "compute_profile_file"}) {
           if (t.contains(k) && !t.at(k).is_null()) {
             throw ScenarioError(std::string("traces.capacity: not with training.") + k +
                                 " (the capacity trace gives each device's step time)");
           }
         }
       }},
  };
}

}  // namespace edgetrain::scenario::keys
