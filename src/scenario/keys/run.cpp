// See run.hpp.
#include "scenario/keys/run.hpp"

#include <map>

#include "input/text.hpp"
#include "platform/bounds.hpp"
#include "scenario/error.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {

namespace text = input::text;
namespace {

// The platform file: the resolved value is its path, or {"file": path, what-ifs...}.
std::filesystem::path platform_file(const nlohmann::json& platform) {
  return (platform.is_object() ? platform.at("file") : platform).get<std::string>();
}

}  // namespace

std::vector<KeySpec> run_rows() {
  return {
      string_key("name", "Run name; names the results folder (`results/<name>`).")
          .names(NameRule::Run)
          .default_file_stem()
          .fills(&Scenario::name),
      integer_key("seed", "Seed from which every random stream of the run derives.")
          .at_least(0)
          .wide()
          .def(1)
          .fills(&Scenario::seed),
      row("platform", ValueType::Platform,
          "SimGrid platform: an XML file (hosts, links, routes), or a fleet description (JSON, see \"Fleet "
          "platforms\") from which the run generates one with the scenario's `seed` (unless the description sets "
          "its own). The object form also changes values of the platform (what-ifs, see \"Platform what-ifs\"): "
          "`{\"file\": ..., \"links\": {...}, \"hosts\": {...}}`, and for a fleet description any of its keys "
          "(`platform.classes.pi4.count`), merged over the file's before generation. A plain string means "
          "`{\"file\": string}`.")
          .required()
          .fills_by(platform_file, &Scenario::platform),
      path_key("platform.file", PathKind::File, "The platform file: SimGrid XML or a fleet description (JSON).")
          .part_of()
          .required(),
      quantity_key("platform.links.<link>.bandwidth", Unit::BitsPerSecond,
                   "What-if: the bandwidth of the platform's `<link>` or `<backbone>` named `<link>`. A SPLITDUPLEX "
                   "link named without `_UP`/`_DOWN` changes both directions, `<link>_UP` or `<link>_DOWN` one.")
          .part_of()
          .at_least(platform::kMinBandwidthBps)
          .limit(platform::kMaxBandwidthBps, "a petabit per second; the platform file has the same bounds")
          .null_default("the platform file's value"),
      quantity_key("platform.links.<link>.latency", Unit::Seconds, "What-if: that link's latency.")
          .part_of()
          .at_least(0)
          .null_default("the platform file's value"),
      quantity_key("platform.hosts.<host>.speed", Unit::Flops,
                   "What-if: the speed per core (flop/s) of the platform's `<host>` named `<host>`.")
          .part_of("speed (f per second)")
          .at_least(platform::kMinSpeedFlops)
          .limit(platform::kMaxSpeedFlops, "a petaflop per core; the platform file has the same bounds")
          .null_default("the platform file's value"),
      integer_key("platform.hosts.<host>.cores", "What-if: that host's core count.")
          .part_of()
          .at_least(1)
          .limit(1e6, "far beyond any host's cores; SimGrid counts cores in an int")
          .null_default("the platform file's value"),
      section_key("network", "How the flow model times transfers: the slow-start TCP model (the default), CM02 as it "
                             "is, or calibrated against ns-3's packet-level TCP (docs/explanation/fidelity.md).")
          .null_default("the slow-start TCP model, uncalibrated"),
      enum_key("network.model", {"tcp", "cm02"},
               "tcp: a transfer takes the time a lone Linux TCP transfer of its size takes on its route (slow start "
               "emulated segment by segment with delayed acknowledgements, headers, the receive window), and flows "
               "that share a link share it as CM02 does. cm02: SimGrid's CM02 as it is, latency + size / bandwidth: "
               "the ideal, with no slow start (3% to 89% below ns-3's time for the 100 KB to 4 MB messages FL sends "
               "on the shipped platforms; results/fidelity).")
          .def("tcp")
          .fills(&Scenario::network, &NetworkSpec::model),
      path_key("network.calibration", PathKind::File,
               "A calibration `edgetrain calibrate` wrote for this scenario's platform: each transfer then takes "
               "the time the slow-start TCP model gives for its size and route at the rate calibrate fitted to its "
               "route class, and the run's fidelity band is what calibrate measured. Refused when made for another "
               "platform (other host or link names), and with network.model cm02.")
          .null_default("none: the slow-start TCP model at Linux's parameters")
          .fills(&Scenario::network, &NetworkSpec::calibration),
      string_key("server",
                 "Platform host of the aggregator (parameter server); with `topology.kind` gossip only the host of the "
                 "observer (no traffic).")
          .required()
          .fills(&Scenario::server),
  };
}

std::vector<KeySpec> device_rows() {
  return {
      entry_list_key("devices", "host", "a host name or an object {\"host\": ..., \"name\": ...}",
                     "Edge devices, one per entry: a host name, or an object with the keys below. Or a selector "
                     "object (keys `devices.<key>` below, combined with AND) naming hosts of the platform, one device "
                     "per host in platform file order, named after its host (see \"Naming devices\").")
          .selects_hosts()
          .required()
          .fills_entries(&Scenario::devices),
      string_key("devices.hosts",
                 "Selector: host names matching this glob (`*`, `?`, `[...]`), or any glob of a list. `\"*\"` is "
                 "every host except the server and hosts whose `role` property is not `device` (aggregators).")
          .part_of("glob or list of globs")
          .null_default("any host"),
      string_key("devices.class", "Selector: hosts whose `class` property (written by the fleet generator) matches.")
          .part_of("glob or list of globs")
          .null_default("any class"),
      string_key("devices.site", "Selector: hosts whose `site` property matches.")
          .part_of("glob or list of globs")
          .null_default("any site"),
      string_key("devices.role",
                 "Selector: hosts whose `role` property matches; without it, hosts with a `role` other than "
                 "`device` are left out.")
          .part_of("glob or list of globs")
          .null_default("`device` or none"),
      string_key("devices.exclude", "Selector: hosts whose name matches are left out.")
          .part_of("glob or list of globs")
          .null_default("none"),
      integer_key("devices.matched",
                  "Selector: how many hosts it matches. The resolved `scenario.json` writes it; given, the selector "
                  "must match exactly that many.")
          .part_of()
          .at_least(1)
          .limit(1e7, "more devices than a run simulates")
          .null_default("not checked"),
      string_key("devices[].host", "Platform host the device runs on.").required().fills(&DeviceSpec::host),
      string_key("devices[].name", "Unique device name (several devices may share a host); written to the CSV files.")
          .names(NameRule::Device)
          .same_as("host")
          .fills(&DeviceSpec::name),
  };
}

std::vector<Rule> run_rules() {
  return {
      {"devices", "Device names must be unique; the server host cannot also be a device.",
       [](const nlohmann::json& r) {
         const auto& devices = r.at("devices");
         const auto& server = r.at("server").get_ref<const std::string&>();
         std::map<std::string, size_t> seen;
         for (size_t i = 0; i < devices.size(); ++i) {
           const std::string at = entry_at("devices", i);
           const auto& name = devices[i].at("name").get_ref<const std::string&>();
           const auto& host = devices[i].at("host").get_ref<const std::string&>();
           if (!seen.emplace(name, i).second) {
             throw ScenarioError(at + ": duplicate device name " + text::show(name));
           }
           if (host == server) {
             throw ScenarioError(at + ": host " + text::show(host) +
                                 " is the server; the server cannot also be a device");
           }
         }
       }},
  };
}

}  // namespace edgetrain::scenario::keys
