// See names.hpp. Device names of two classes never meet (CLASS-DIGITS gives back its class), so
// only the few other names are compared with them, without listing every device.
#include "fleet/names.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace edgetrain::fleet {

std::vector<std::pair<std::string, size_t>> site_instances(const std::vector<SiteGroup>& groups) {
  std::vector<std::pair<std::string, size_t>> out;
  for (size_t g = 0; g < groups.size(); ++g) {
    for (int64_t i = 0; i < groups[g].count; ++i) {
      out.emplace_back(groups[g].count == 1 ? groups[g].name : groups[g].name + "-" + std::to_string(i), g);
    }
  }
  return out;
}

void check_names(const FleetSpec& spec, const std::string& where) {
  std::map<std::string, std::string> taken;  // name -> what it names
  std::map<std::string, int64_t> class_counts;
  for (const DeviceClass& c : spec.classes) class_counts[c.name] = c.count;
  const std::string path = where.empty() ? "the description" : where;
  auto take = [&](const std::string& name, const std::string& what) {
    // Is it a device's name, CLASS-J with J < the class's count?
    const size_t dash = name.rfind('-');
    if (dash != std::string::npos && dash + 1 < name.size()) {
      const std::string digits = name.substr(dash + 1);
      const auto it = class_counts.find(name.substr(0, dash));
      const bool number = std::all_of(digits.begin(), digits.end(),
                                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
                          (digits.size() == 1 || digits[0] != '0') && digits.size() < 12;
      if (it != class_counts.end() && number && std::stoll(digits) < it->second) {
        throw FleetError(path + ": " + what + " would be named \"" + name + "\", like a host of class \"" + it->first +
                         "\": rename the class or the site");
      }
    }
    const auto [at, fresh] = taken.emplace(name, what);
    if (!fresh) {
      throw FleetError(path + ": " + what + " and " + at->second + " would both be named \"" + name +
                       "\": rename one of them");
    }
  };
  take(kTopZone, "the platform's top zone");
  take(spec.cloud.host, "the cloud host");
  take(cloud_zone(spec.cloud.host), "the cloud's zone");
  for (const auto& [site, group] : site_instances(spec.sites)) {
    take(site, "the zone of site \"" + site + "\"");
    take(site_router(site), "the gateway of site \"" + site + "\"");
    if (spec.sites[group].aggregator) take(site_aggregator(site), "the aggregator of site \"" + site + "\"");
  }
}

}  // namespace edgetrain::fleet
