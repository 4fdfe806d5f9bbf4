// See link_ledger.hpp.
#include "sim/core/link_ledger.hpp"

#include "sim/core/transfer_log.hpp"

#include <simgrid/s4u.hpp>
#include <string>

#include "sim/core/platform.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

const char* sharing_name(sg4::Link::SharingPolicy p) {
  switch (p) {
    case sg4::Link::SharingPolicy::FATPIPE: return "fatpipe";
    case sg4::Link::SharingPolicy::SPLITDUPLEX: return "splitduplex";
    case sg4::Link::SharingPolicy::WIFI: return "wifi";
    case sg4::Link::SharingPolicy::NONLINEAR: return "nonlinear";
    case sg4::Link::SharingPolicy::SHARED: break;
  }
  return "shared";
}

}  // namespace

const std::vector<size_t>& LinkLedger::route(const sg4::Host* from, const sg4::Host* to) {
  auto it = routes_.find({from, to});
  if (it == routes_.end()) {
    std::vector<sg4::Link*> links;
    double latency = 0;
    from->route_to(to, links, &latency);
    std::vector<size_t> ids;
    for (const auto* l : links) {
      auto [entry, added] = index_.emplace(l->get_name(), usage_.size());
      if (added) {
        Usage u;
        u.name = l->get_name();
        u.link = l;
        u.peak.link = u.name;
        u.peak.handle = l;
        u.initial_bandwidth_Bps = l->get_bandwidth();
        usage_.push_back(std::move(u));
      }
      ids.push_back(entry->second);
    }
    it = routes_.emplace(std::make_pair(from, to), std::move(ids)).first;
  }
  return it->second;
}

void LinkLedger::carried(const sg4::Host* from, const sg4::Host* to, int64_t bytes) {
  for (size_t id : route(from, to)) {
    usage_[id].bytes += bytes;
    usage_[id].messages += 1;
    const double bandwidth = usage_[id].link->get_bandwidth();  // bytes/s (not a rate on a Wi-Fi link)
    if (bandwidth > 0) usage_[id].full_load_s += static_cast<double>(bytes) / bandwidth;
  }
}

void LinkLedger::begin(const sg4::Host* from, const sg4::Host* to, int64_t bytes) {
  const double now = sg4::Engine::get_clock();
  if (log_) log_->began(from, to, bytes, now);
  for (size_t id : route(from, to)) {
    Usage& u = usage_[id];
    if (u.in_flight++ > 0) continue;
    u.busy_since = now;
    u.busy_index = busy_.size();
    busy_.push_back(id);
  }
}

void LinkLedger::end(const sg4::Host* from, const sg4::Host* to) {
  const double now = sg4::Engine::get_clock();
  if (log_) log_->ended(from, to, now);
  for (size_t id : route(from, to)) {
    Usage& u = usage_[id];
    if (--u.in_flight > 0) continue;
    u.busy_s += now - u.busy_since;
    usage_[busy_.back()].busy_index = u.busy_index;  // swap-remove
    busy_[u.busy_index] = busy_.back();
    busy_.pop_back();
  }
}

double LinkLedger::full_load_s(const std::string& link) const {
  const auto it = index_.find(link);
  return it == index_.end() ? 0.0 : usage_[it->second].full_load_s;
}

void LinkLedger::sample_rates(double delta_s) {
  if (!(delta_s > 0)) return;  // no time passed: nothing was carried
  const double now = sg4::Engine::get_clock();
  for (size_t id : busy_) {
    Usage& u = usage_[id];
    Peak& p = u.peak;
    const double rate = p.handle->get_usage();          // bytes/s over [now - delta_s, now]
    const double bandwidth = p.handle->get_bandwidth();  // a trace changes it only after this instant
    if (bandwidth != u.initial_bandwidth_Bps) p.bandwidth_changed = true;
    const double utilization = bandwidth > 0 ? rate / bandwidth : 0.0;
    if (utilization <= p.utilization) continue;
    p.utilization = utilization;
    p.rate_Bps = rate;
    p.bandwidth_Bps = bandwidth;
    p.from_s = now - delta_s;
    p.to_s = now;
  }
}

std::vector<LinkLedger::Peak> LinkLedger::peaks() const {
  std::map<std::string, Peak> sorted;
  for (const Usage& u : usage_) sorted[u.name] = u.peak;
  std::vector<Peak> out;
  for (auto& [name, p] : sorted) out.push_back(std::move(p));
  return out;
}

std::vector<report::LinkRow> LinkLedger::records(double end_s) const {
  std::map<std::string, report::LinkRow> all;
  for (const auto* link : sg4::Engine::get_instance()->get_all_links()) {
    report::LinkRow r;
    r.link = link->get_name();
    // SimGrid stores bytes per second; a Wi-Fi link's rate depends on the station (its top rate here).
    const char* wifi_top = link->get_property(kWifiTopRateProperty);
    r.bandwidth_bps = (wifi_top ? std::stod(wifi_top) : link->get_bandwidth()) * 8;
    r.latency_s = link->get_latency();
    r.sharing = sharing_name(link->get_sharing_policy());
    all[r.link] = r;
  }
  for (const Usage& u : usage_) {
    report::LinkRow& r = all[u.name];
    r.link = u.name;
    r.sharing = sharing_name(u.link->get_sharing_policy());
    r.bytes = u.bytes;
    r.messages = u.messages;
    r.busy_s = u.busy_s + (u.in_flight > 0 ? end_s - u.busy_since : 0.0);
    r.full_load_s = u.full_load_s;
  }
  std::vector<report::LinkRow> out;
  for (auto& [name, r] : all) out.push_back(r);
  return out;
}

}  // namespace edgetrain::sim
