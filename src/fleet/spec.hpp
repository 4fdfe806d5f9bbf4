// A fleet description once validated: device classes, access-link classes, edge sites, the WAN
// backbone and the cloud, every quantity in its base unit (flop/s, bit/s, s) and every class's
// count resolved from counts or shares. parse.hpp builds it from JSON; draw.hpp turns it into
// one concrete device per host; xml.hpp writes the SimGrid platform. No SimGrid, no LibTorch.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "input/trace_files.hpp"
#include "util/input_error.hpp"
#include "util/printable.hpp"

namespace edgetrain::fleet {

// The one error this module throws: the whole line to show, starting with the JSON path.
class FleetError : public std::runtime_error, public util::InputError {
 public:
  explicit FleetError(const std::string& message) : std::runtime_error(util::printable(message)) {}
};

// A seeded distribution of a per-device value (speed per core in flop/s, or cores).
struct Distribution {
  enum class Kind { Constant, Uniform, Normal, List };
  Kind kind = Kind::Constant;
  double value = 0;             // Constant
  double min = 0, max = 0;      // Uniform; Normal clips to [min, max]
  double mean = 0, stddev = 0;  // Normal
  std::vector<double> values;   // List: one picked per device
  std::vector<double> weights;  // List: relative weights, same length (all 1 when not given)
};

using Properties = std::map<std::string, std::string>;  // host properties, copied into the XML
// The host property holding a traced device's on intervals, "start:end,start:end" in seconds (the run
// reads it: sim/core/device_traces.hpp).
inline constexpr const char* kAvailabilityProperty = "availability_on_s";

struct LinkClass {
  std::string name;
  double up_bps = 0, down_bps = 0, latency_s = 0;    // up: device to network
  std::string up_wattage_range, down_wattage_range;  // SimGrid's "idle:busy" watts per direction, or ""
};

struct DeviceClass {
  std::string name;
  int64_t count = 0;  // resolved from "count" or "share"
  Distribution speed_flops, cores;
  std::vector<std::pair<std::string, double>> link_shares;  // link class -> share, summing to 1
  std::vector<std::pair<std::string, double>> site_shares;  // site group -> share; empty: every site alike
  Properties properties;
  // Traces the class's devices follow (docs/how-to/device-traces.md), each device drawing a trace
  // device of its own stream: its speed and access bandwidth (then `speed_flops` is unused), its on
  // intervals (written as the host property `availability_on_s`).
  std::shared_ptr<const input::CapacityTrace> capacity;
  double reference_step_flops = 0;  // training FLOPs per sample of the capacity trace's reference model
  std::shared_ptr<const input::AvailabilityTrace> availability;
};

// A link of fixed capacity in each direction (a site's uplink, an aggregator's LAN port).
struct DuplexLink {
  double up_bps = 0, down_bps = 0, latency_s = 0;
};

// One link shared by both directions' traffic in full duplex (SimGrid SPLITDUPLEX).
struct Backbone {
  double bandwidth_bps = 0, latency_s = 0;
};

struct HostSpec {
  double speed_flops = 0;
  int64_t cores = 1;
  Properties properties;
};

struct SiteAggregator {
  HostSpec host;
  DuplexLink link;  // its port on the site's LAN
};

// Sites declared under one name: `count` sites named NAME (count 1) or NAME-0 ... NAME-(count-1).
struct SiteGroup {
  std::string name;
  int64_t count = 1;
  std::optional<DuplexLink> uplink;  // the site gateway's link to the WAN: its shared bottleneck
  std::optional<Backbone> lan;       // shared by every transfer inside the site
  std::optional<SiteAggregator> aggregator;
};

struct Cloud {
  std::string host = "cloud";
  HostSpec spec;
  std::optional<Backbone> ingress;  // link "cloud-ingress", after the WAN
};

struct FleetSpec {
  std::string name;
  uint64_t seed = 1;  // the description's "seed"; platform_xml takes the seed to use
  int64_t devices = 0;
  std::vector<DeviceClass> classes;     // name order
  std::vector<LinkClass> link_classes;  // name order
  std::vector<SiteGroup> sites;         // name order; never empty ("edge" when not given)
  Backbone wan;                         // link "wan", between every site and the cloud
  Cloud cloud;
};

}  // namespace edgetrain::fleet
