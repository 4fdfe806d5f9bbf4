// See bottleneck.hpp.
#include "report/bottleneck.hpp"

#include <algorithm>
#include <map>

namespace edgetrain::report {

CriticalPath slowest_device(const std::vector<RoundRow>& rounds, const std::vector<DeviceRecord>& devices) {
  std::map<std::string, int64_t> times;
  for (const auto& r : rounds)
    if (!r.slowest_device.empty()) times[r.slowest_device] += 1;
  auto times_of = [&](const DeviceRecord& d) {
    const auto it = times.find(d.device);
    return it == times.end() ? int64_t{0} : it->second;
  };
  std::map<std::string, int64_t> class_times;
  for (const auto& d : devices) class_times[d.device_class] += times_of(d);
  CriticalPath best;
  for (const auto& d : devices) {  // the class, in scenario order
    const int64_t t = class_times[d.device_class];
    if (t > best.class_rounds) {
      best.device_class = d.device_class;
      best.class_rounds = t;
    }
  }
  if (best.class_rounds == 0) return {};
  // a/b > c/d without division; a device with no aggregated round has no share.
  auto larger_share = [](int64_t a, int64_t b, int64_t c, int64_t d) { return b > 0 && (d == 0 || a * d > c * b); };
  for (const auto& d : devices) {
    if (d.device_class != best.device_class) continue;
    const int64_t t = times_of(d);
    if (t == 0) continue;
    if (t > best.rounds ||
        (t == best.rounds && larger_share(t, d.rounds_aggregated, best.rounds, best.rounds_aggregated))) {
      best.device = d.device;
      best.rounds = t;
      best.rounds_aggregated = d.rounds_aggregated;
    }
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
                          {"sharing", l.sharing},
                          {"bytes", l.bytes},
                          {"mean_utilization", utilization(l, sim_time_s)},
                          {"busy_fraction", sim_time_s > 0 ? l.busy_s / sim_time_s : 0.0},
                          {"utilization_when_busy", utilization(l, l.busy_s)}});
  }
  nlohmann::json all = bound_counts();
  nlohmann::json by_class = nlohmann::json::object();
  int64_t took_no_part = 0;
  for (const auto& d : devices) {
    const std::string bound = device_bound(d);
    if (bound == "none") {
      took_no_part += 1;
      continue;
    }
    all[bound] = all[bound].get<int64_t>() + 1;
    nlohmann::json& c = by_class[d.device_class];
    if (c.is_null()) c = bound_counts();
    c[bound] = c[bound].get<int64_t>() + 1;
  }
  j["devices"] = all;
  j["by_class"] = by_class;
  j["took_no_part"] = took_no_part;
  if (critical.device.empty()) {
    j["critical_path"] = nullptr;
  } else {
    j["critical_path"] = {
        {"device", critical.device},
        {"rounds_slowest", critical.rounds},
        {"share_of_rounds", static_cast<double>(critical.rounds) / static_cast<double>(rounds.size())},
        {"rounds_taken_part", critical.rounds_aggregated},
        {"class", critical.device_class},
        {"class_rounds_slowest", critical.class_rounds},
        {"class_share_of_rounds", static_cast<double>(critical.class_rounds) / static_cast<double>(rounds.size())},
        {"link", critical.link},
        {"link_bandwidth_bps", critical.link_bandwidth_bps}};
  }
  return j;
}

}  // namespace edgetrain::report
