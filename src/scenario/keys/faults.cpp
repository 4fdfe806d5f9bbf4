// See faults.hpp.
#include "scenario/keys/faults.hpp"

#include <algorithm>
#include <map>

#include "input/text.hpp"
#include "scenario/error.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {

namespace text = input::text;
namespace {

// A resolved interval list ([[off_s, on_s], ...] or null = none).
std::vector<OffInterval> off_intervals(const nlohmann::json& v) {
  std::vector<OffInterval> out;
  if (v.is_null()) return out;
  for (const auto& e : v) out.push_back({e.at(0).get<double>(), e.at(1).get<double>()});
  return out;
}

// "faults.devices[i].device": a device of the scenario or "*", each named at most once.
void check_fault_device_names(const nlohmann::json& r) {
  const auto& entries = fault_entries(r, "devices");
  std::vector<std::string> names;
  for (const auto& d : r.at("devices")) names.push_back(d.at("name").get<std::string>());
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string at = entry_at("faults.devices", i) + ".device";
    const auto& name = entries[i].at("device").get_ref<const std::string&>();
    if (name != "*" && std::find(names.begin(), names.end(), name) == names.end()) {
      std::string msg = at + ": no device named " + text::show(name);
      if (auto near = text::closest(name, names)) throw ScenarioError(msg + " (did you mean \"" + *near + "\"?)");
      constexpr size_t kShown = 8;
      std::vector<std::string> shown(names.begin(), names.begin() + std::min(names.size(), kShown));
      if (names.size() > kShown) shown.push_back("...");
      throw ScenarioError(msg + " (devices: " + text::join(shown, ", ") + "; or \"*\" for every other device)");
    }
    const auto [it, fresh] = seen.emplace(name, i);
    if (fresh) continue;
    const std::string first = entry_at("faults.devices", it->second);
    if (name == "*") {
      throw ScenarioError(at + ": a second \"*\" entry (" + first + " already covers every device not named)");
    }
    throw ScenarioError(at + ": device " + text::show(name) + " already has an entry (" + first + ")");
  }
}

}  // namespace

const nlohmann::json& fault_entries(const nlohmann::json& r, const char* key) {
  static const nlohmann::json none = nlohmann::json::array();
  const auto& f = r.at("faults");
  if (f.is_null() || f.at(key).is_null()) return none;
  return f.at(key);
}

std::vector<KeySpec> fault_rows() {
  return {
      section_key("faults",
                  "Faults: devices that go off and come back (churn), link bandwidth over time and link outages.")
          .null_default("no faults")
          .fills(&Scenario::faults),
      entry_list_key("faults.devices", "",
                     "an object {\"device\": ..., \"off_s\": [[off, on], ...]} or {\"device\": ..., \"mtbf_s\": ..., "
                     "\"mttr_s\": ...}",
                     "Device availability, one entry per device (or `*`): fixed off intervals (`off_s`), or seeded "
                     "random failures (`mtbf_s` and `mttr_s`).")
          .empty_allowed()
          .null_default("no device faults")
          .fills_entries(&Scenario::faults, &FaultsSpec::devices),
      string_key("faults.devices[].device",
                 "A device name (`devices[].name`), or `*` = every device not named in another entry.")
          .def("*")
          .fills(&DeviceFaultSpec::device),
      interval_list_key("faults.devices[].off_s", "Times the device is off, e.g. `[[60, 120], [300, 330]]`.")
          .null_default("no fixed off intervals")
          .fills_by(off_intervals, &DeviceFaultSpec::off),
      quantity_key("faults.devices[].mtbf_s", Unit::Seconds,
                   "Mean time between failures: each up time is drawn exponential with this mean (seeded).")
          .above(0)
          .null_default("no random failures")
          .fills(&DeviceFaultSpec::mtbf_s),
      quantity_key("faults.devices[].mttr_s", Unit::Seconds,
                   "Mean time to repair: each down time is drawn exponential with this mean (seeded).")
          .above(0)
          .null_default("no random failures")
          .fills(&DeviceFaultSpec::mttr_s),
      entry_list_key("faults.links", "", "an object {\"link\": ..., \"trace\": ..., \"off_s\": [[off, on], ...]}",
                     "Link faults, one entry per link: its bandwidth over time (`trace`) and its outages (`off_s`).")
          .empty_allowed()
          .null_default("no link faults")
          .fills_entries(&Scenario::faults, &FaultsSpec::links),
      string_key("faults.links[].link",
                 "Platform link name; a SPLITDUPLEX link is `<id>_UP` or `<id>_DOWN` (checked against the platform "
                 "when the run starts).")
          .required()
          .fills(&LinkFaultSpec::link),
      path_key("faults.links[].trace", PathKind::File,
               "CSV file of `time_s,bandwidth_bps` rows (header allowed): the link's bandwidth over time, piecewise "
               "constant.")
          .null_default("the platform's constant bandwidth")
          .fills(&LinkFaultSpec::trace),
      interval_list_key("faults.links[].off_s", "Times the link is down, e.g. `[[60, 120]]`.")
          .null_default("never down")
          .fills_by(off_intervals, &LinkFaultSpec::off),
      quantity_key("faults.retry_s", Unit::Seconds,
                   "A device waits this long after a failed transfer before trying again.")
          .above(0)
          .def(1.0)
          .fills(&Scenario::faults, &FaultsSpec::retry_s),
  };
}

std::vector<Rule> fault_rules() {
  return {
      {"faults.devices", "Each entry gives either `off_s`, or both `mtbf_s` and `mttr_s`.",
       [](const nlohmann::json& r) {
         const auto& entries = fault_entries(r, "devices");
         for (size_t i = 0; i < entries.size(); ++i) {
           const std::string at = entry_at("faults.devices", i);
           const bool off = !entries[i].at("off_s").is_null();
           const bool mtbf = !entries[i].at("mtbf_s").is_null(), mttr = !entries[i].at("mttr_s").is_null();
           if (off && (mtbf || mttr)) {
             throw ScenarioError(at +
                                 ": give either off_s (fixed off intervals) or mtbf_s and mttr_s (random "
                                 "failures), not both");
           }
           if (mtbf && !mttr) throw ScenarioError(at + ".mttr_s: required with mtbf_s (random failures need both)");
           if (mttr && !mtbf) throw ScenarioError(at + ".mtbf_s: required with mttr_s (random failures need both)");
           if (!off && !mtbf) {
             throw ScenarioError(at + ": give off_s (fixed off intervals), or mtbf_s and mttr_s (random failures)");
           }
         }
       }},
      {"faults.devices[].device",
       "A device name of `devices` or `*`; each device in at most one entry, and at most one `*` entry.",
       check_fault_device_names},
      {"faults.devices",
       "Not supported with `compression.downlink`: a device that restarts has lost its model copy, which the "
       "downlink deltas update.",
       [](const nlohmann::json& r) {
         if (fault_entries(r, "devices").empty()) return;
         const auto& c = r.at("compression");
         if (c.is_null() || c.at("downlink").is_null()) return;
         throw ScenarioError(
             "faults.devices: not supported with compression.downlink: a device that restarts has lost its model "
             "copy, which the downlink deltas update (set compression.downlink to null)");
       }},
      {"faults.links", "Each entry gives `trace` or `off_s` (or both); each link in at most one entry.",
       [](const nlohmann::json& r) {
         const auto& entries = fault_entries(r, "links");
         std::map<std::string, size_t> seen;
         for (size_t i = 0; i < entries.size(); ++i) {
           const std::string at = entry_at("faults.links", i);
           if (entries[i].at("trace").is_null() && entries[i].at("off_s").is_null()) {
             throw ScenarioError(at + ": give trace (bandwidth over time), off_s (outages), or both");
           }
           const auto& link = entries[i].at("link").get_ref<const std::string&>();
           const auto [it, fresh] = seen.emplace(link, i);
           if (!fresh) {
             throw ScenarioError(at + ".link: link " + text::show(link) + " already has an entry (" +
                                 entry_at("faults.links", it->second) + ")");
           }
         }
       }},
  };
}

}  // namespace edgetrain::scenario::keys
