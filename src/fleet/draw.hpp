// Turning a FleetSpec and a seed into concrete devices: which site and link class each host
// gets, and its speed and cores drawn from its class's distributions. Counts per class, per
// (class, site) and per (class, link class) are exact (split.hpp); only which device gets which
// link class, and the drawn values, depend on the seed. Each device's values come from its own
// stream (seed, class, index), so adding devices to a class leaves the others' values alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fleet/spec.hpp"

namespace edgetrain::fleet {

struct Device {
  std::string host;
  size_t class_index = 0, site_index = 0, link_index = 0;  // into spec.classes, Fleet::sites, spec.link_classes
  double speed_flops = 0;                                  // per core, rounded to whole Mf (1e6 flop/s)
  int64_t cores = 1;
  double bandwidth_bps = 0;       // > 0: its class's capacity trace sets both access links (else the link class's)
  std::string availability_on_s;  // its class's availability trace: "start:end,..." (empty: none)
};

struct Site {
  std::string name;
  size_t group = 0;                      // index into spec.sites
  size_t first_device = 0, devices = 0;  // its devices are Fleet::devices[first_device, first_device + devices)
};

struct Fleet {
  const FleetSpec* spec = nullptr;  // the spec it was drawn from: must outlive the Fleet
  uint64_t seed = 0;
  std::vector<Site> sites;
  std::vector<Device> devices;  // site by site; in a site, class by class, each class's hosts in order
};

Fleet draw_fleet(const FleetSpec& spec, uint64_t seed);

// One value of `d` from a stream of uniform doubles in [0, 1) (exposed for tests).
class UniformSource {
 public:
  explicit UniformSource(uint64_t seed) : state_(seed) {}
  double next();  // SplitMix64, 53 bits: the same numbers on every machine

 private:
  uint64_t state_;
};
double draw_value(const Distribution& d, UniformSource& source);
// A whole number (cores): uniform over the whole numbers of [min, max], else the value rounded.
int64_t draw_count(const Distribution& d, UniformSource& source);

}  // namespace edgetrain::fleet
