// See capacity_check.hpp.
#include "sim/core/capacity_check.hpp"

#include <cstdio>
#include <string_view>
#include <unordered_map>
#include <simgrid/s4u/Link.hpp>
#include <xbt/config.hpp>

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

std::string mbps(double bytes_per_s) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g Mbit/s", bytes_per_s * 8 / 1e6);
  return text;
}

std::string seconds(double s) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g s", s);
  return text;
}

}  // namespace

CapacityCheck check_capacity(const LinkLedger& ledger, const std::vector<report::LinkRow>& rows) {
  CapacityCheck out;
  nlohmann::json violations = nlohmann::json::array();
  int64_t checked = 0;
  double worst = 0;
  std::string worst_link;
  // Under ns-3 the peaks are not sampled (run.cpp): packets cannot overfill a link; only the average.
  const bool peaks = simgrid::config::get_value<std::string>("network/model") != "ns-3";
  // links.csv's rows by link name: one lookup per link (a scan per link was quadratic in a fleet's links).
  std::unordered_map<std::string_view, const report::LinkRow*> by_name;
  by_name.reserve(rows.size());
  for (const report::LinkRow& r : rows) by_name.emplace(r.link, &r);
  for (const LinkLedger::Peak& p : ledger.peaks()) {
    const auto policy = p.handle->get_sharing_policy();
    if (policy == sg4::Link::SharingPolicy::WIFI) continue;
    checked += 1;
    if (p.utilization > worst) worst = p.utilization, worst_link = p.link;
    if (p.utilization > 1 + kCapacityTolerance) {
      violations.push_back({{"link", p.link},
                            {"check", "peak"},
                            {"bandwidth_bps", p.bandwidth_Bps * 8},
                            {"rate_bps", p.rate_Bps * 8},
                            {"from_s", p.from_s},
                            {"to_s", p.to_s}});
      out.warnings.push_back("link " + p.link + " carried " + mbps(p.rate_Bps) + " from " + seconds(p.from_s) +
                             " to " + seconds(p.to_s) + ", above its bandwidth of " + mbps(p.bandwidth_Bps) +
                             ": the network solver shared it wrongly, and the simulated times are wrong");
    }
    if (policy == sg4::Link::SharingPolicy::FATPIPE || p.bandwidth_changed) continue;
    const auto found = by_name.find(p.link);
    if (found == by_name.end() || !(found->second->busy_s > 0)) continue;
    const report::LinkRow* row = found->second;
    // Against the bandwidth each message was carried at (full_load_s), not the link's last one: a
    // population's host slot takes each placed device's, and a trace may change it while the link idles.
    const double average = row->full_load_s / row->busy_s;
    if (average > 1 + kCapacityTolerance) {
      violations.push_back({{"link", p.link},
                            {"check", "average when busy"},
                            {"bandwidth_bps", row->bandwidth_bps},
                            {"rate_bps", average * row->bandwidth_bps},
                            {"busy_s", row->busy_s}});
      out.warnings.push_back("link " + p.link + " carried " + std::to_string(row->bytes) + " bytes in " +
                             seconds(row->busy_s) + " of busy time, " + mbps(average * row->bandwidth_bps / 8) +
                             ", above its bandwidth of " + mbps(row->bandwidth_bps / 8) +
                             ": the network solver shared it wrongly, and the simulated times are wrong");
    }
  }
  out.summary = {{"checked_links", checked},
                 {"peak_utilization", peaks ? nlohmann::json(worst) : nlohmann::json()},
                 {"peak_link", worst_link.empty() ? nlohmann::json() : nlohmann::json(worst_link)},
                 {"tolerance", kCapacityTolerance},
                 {"violations", violations}};
  return out;
}

std::optional<std::string> solver_warning() {
  const auto optim = simgrid::config::get_value<std::string>("network/optim");
  const bool selective = simgrid::config::get_value<bool>("network/maxmin-selective-update");
  if (optim != "Lazy" && !selective) return std::nullopt;
  return std::string(optim == "Lazy" ? "--cfg=network/optim:Lazy" : "--cfg=network/maxmin-selective-update:1") +
         ": SimGrid 3.32's selective update of the network solver misses links when several transfers start "
         "sharing in the same instant, so a link can carry up to twice its bandwidth and transfers end too "
         "early (docs/explanation/time-model.md); edgetrain uses network/optim:Full by default. "
         "The run checks every link's capacity and reports any excess in summary.json";
}

}  // namespace edgetrain::sim
