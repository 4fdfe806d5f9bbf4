// See bottleneck.hpp.
#include "report/bottleneck.hpp"

#include <algorithm>
#include <map>

namespace edgetrain::report {

CriticalPath slowest_device(const std::vector<RoundRow>& rounds, const std::vector<DeviceRecord>& devices) {
  std::map<std::string, int64_t> times;
  for (const auto& r : rounds)
    if (!r.slowest_device.empty()) times[r.slowest_device] += 1;
  CriticalPath best;
  for (const auto& d : devices) {
    const auto it = times.find(d.device);
    if (it != times.end() && it->second > best.rounds) best = {d.device, it->second, "", 0};
  }
  return best;
}

namespace {

nlohmann::json bound_counts() { return {{"compute", 0}, {"communication", 0}, {"data", 0}, {"wait", 0}}; }

}  // namespace

nlohmann::json bottleneck_json(const std::vector<DeviceRecord>& devices, const std::vector<LinkRow>& links,
                               const std::vector<RoundRow>& rounds, const CriticalPath& critical, double sim_time_s) {
  nlohmann::json j;
  // Links that carried something, by mean utilisation (ties by name: links come sorted).
  std::vector<const LinkRow*> used;
  for (const auto& l : links)
    if (l.bytes > 0) used.push_back(&l);
  std::stable_sort(used.begin(), used.end(), [sim_time_s](const LinkRow* a, const LinkRow* b) {
    return utilization(*a, sim_time_s) > utilization(*b, sim_time_s);
  });
  j["links"] = nlohmann::json::array();
  for (size_t i = 0; i < used.size() && i < kBusiestLinks; ++i) {
    const LinkRow& l = *used[i];
    j["links"].push_back({{"link", l.link},
                          {"bandwidth_bps", l.bandwidth_bps},
                          {"bytes", l.bytes},
                          {"mean_utilization", utilization(l, sim_time_s)},
                          {"busy_fraction", sim_time_s > 0 ? l.busy_s / sim_time_s : 0.0},
                          {"utilization_when_busy", utilization(l, l.busy_s)}});
  }
  nlohmann::json all = bound_counts();
  nlohmann::json by_class = nlohmann::json::object();
  for (const auto& d : devices) {
    const char* bound = device_bound(d);
    all[bound] = all[bound].get<int64_t>() + 1;
    nlohmann::json& c = by_class[d.device_class];
    if (c.is_null()) c = bound_counts();
    c[bound] = c[bound].get<int64_t>() + 1;
  }
  j["devices"] = all;
  j["by_class"] = by_class;
  if (critical.device.empty()) {
    j["critical_path"] = nullptr;
  } else {
    j["critical_path"] = {
        {"device", critical.device},
        {"rounds_slowest", critical.rounds},
        {"share_of_rounds", static_cast<double>(critical.rounds) / static_cast<double>(rounds.size())},
        {"link", critical.link},
        {"link_bandwidth_bps", critical.link_bandwidth_bps}};
  }
  return j;
}

}  // namespace edgetrain::report
