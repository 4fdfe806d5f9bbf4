#include "packet/crosscheck.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "util/format.hpp"

namespace edgetrain::packet {

namespace {

// The flow model's error against the packet-level time, as calibrate reports it: -0.30 means the
// flow model said 30% less time than the packet-level replay took (it was optimistic).
double error(double flow_s, double packet_s) { return packet_s > 0 ? flow_s / packet_s - 1 : 0; }

// How many transfers were on the busiest link of each transfer's route at any instant of its
// flow-level span, itself included.
std::vector<int64_t> sharing(const Workload& w) {
  std::vector<std::vector<size_t>> on_link(w.links.size());
  for (size_t t = 0; t < w.transfers.size(); ++t)
    for (const size_t l : w.transfers[t].route) on_link[l].push_back(t);
  std::vector<int64_t> most(w.transfers.size(), 1);
  for (const auto& transfers : on_link) {
    // Sweep the link's start and end events; each transfer keeps the highest count seen while open.
    std::vector<std::pair<double, int64_t>> events;  // (time, +1 start / -1 end); ends first at a tie
    for (const size_t t : transfers) {
      events.push_back({w.transfers[t].flow_start_s, +1});
      events.push_back({w.transfers[t].flow_end_s, -1});
    }
    std::sort(events.begin(), events.end());
    std::vector<std::pair<double, int64_t>> level;  // count after each event
    int64_t open = 0;
    for (const auto& [at, step] : events) level.push_back({at, open += step});
    for (const size_t t : transfers) {
      const Transfer& x = w.transfers[t];
      const auto from = std::lower_bound(level.begin(), level.end(), std::pair{x.flow_start_s, int64_t{1}});
      const auto to = std::lower_bound(level.begin(), level.end(), std::pair{x.flow_end_s, int64_t{-1}});
      for (auto it = from; it != to && it != level.end(); ++it) most[t] = std::max(most[t], it->second);
    }
  }
  return most;
}

std::string size_class(int64_t bytes) {
  if (bytes < 100'000) return "under 100 KB";
  if (bytes < 1'000'000) return "100 KB to 1 MB";
  if (bytes < 10'000'000) return "1 to 10 MB";
  return "10 MB and more";
}

std::string sharing_class(int64_t flows) {
  if (flows <= 1) return "alone";
  if (flows <= 4) return "2 to 4 flows";
  if (flows <= 16) return "5 to 16 flows";
  return "more than 16 flows";
}

// Count, median, mean of |error| and the largest |error| of a group.
nlohmann::json stats(std::vector<double> errors) {
  nlohmann::json j;
  j["count"] = errors.size();
  if (errors.empty()) return j;
  std::sort(errors.begin(), errors.end());
  double abs_sum = 0, worst = 0;
  for (const double e : errors) {
    abs_sum += std::fabs(e);
    worst = std::max(worst, std::fabs(e));
  }
  j["median_error"] = errors[(errors.size() - 1) / 2];
  j["mean_abs_error"] = abs_sum / static_cast<double>(errors.size());
  j["max_abs_error"] = worst;
  j["min_error"] = errors.front();
  j["max_error"] = errors.back();
  return j;
}

}  // namespace

CrosscheckReport crosscheck_report(const Workload& w, const std::vector<Timing>& packet, const TcpSettings& tcp,
                                   int64_t local) {
  const std::vector<int64_t> flows = sharing(w);
  std::ostringstream csv;
  csv.precision(9);
  csv << "round,source,destination,bytes,flows_on_busiest_link,flow_start_s,flow_s,packet_start_s,packet_s,error\n";
  std::map<std::string, std::vector<double>> by_size, by_sharing;
  std::vector<double> all;
  struct Span {
    double flow_start = INFINITY, flow_end = -INFINITY, packet_start = INFINITY, packet_end = -INFINITY;
  };
  std::map<int64_t, Span> rounds;
  double flow_end = 0, packet_end = 0;
  for (size_t i = 0; i < w.transfers.size(); ++i) {
    const Transfer& t = w.transfers[i];
    const double flow_s = t.flow_end_s - t.flow_start_s;
    const double e = error(flow_s, packet[i].seconds());
    csv << t.round << ',' << t.src << ',' << t.dst << ',' << t.bytes << ',' << flows[i] << ',' << t.flow_start_s << ','
        << flow_s << ',' << packet[i].start_s << ',' << packet[i].seconds() << ',' << e << '\n';
    all.push_back(e);
    by_size[size_class(t.bytes)].push_back(e);
    by_sharing[sharing_class(flows[i])].push_back(e);
    Span& r = rounds[t.round];
    r.flow_start = std::min(r.flow_start, t.flow_start_s);
    r.flow_end = std::max(r.flow_end, t.flow_end_s);
    r.packet_start = std::min(r.packet_start, packet[i].start_s);
    r.packet_end = std::max(r.packet_end, packet[i].end_s);
    flow_end = std::max(flow_end, t.flow_end_s);
    packet_end = std::max(packet_end, packet[i].end_s);
  }
  nlohmann::json j;
  j["tcp"] = {{"congestion", tcp.congestion},
              {"recovery", tcp.recovery},
              {"mss_bytes", tcp.mss_bytes},
              {"initial_window_segments", tcp.initial_window},
              {"receive_window_bytes", tcp.receive_window_bytes},
              {"min_queue_packets", tcp.min_queue_packets},
              {"min_rto_s", tcp.min_rto_s},
              {"data_retries", tcp.data_retries}};
  j["transfers"] = w.transfers.size();
  j["local_transfers_not_replayed"] = local;
  j["transfer_error"] = stats(all);
  for (const auto& [name, errors] : by_size) j["transfer_error_by_size"][name] = stats(errors);
  for (const auto& [name, errors] : by_sharing) j["transfer_error_by_sharing"][name] = stats(errors);
  std::vector<double> round_errors;
  for (const auto& [round, r] : rounds) {
    const double e = error(r.flow_end - r.flow_start, r.packet_end - r.packet_start);
    round_errors.push_back(e);
    j["rounds"].push_back({{"round", round},
                           {"flow_s", r.flow_end - r.flow_start},
                           {"packet_s", r.packet_end - r.packet_start},
                           {"error", e}});
  }
  j["round_error"] = stats(round_errors);
  j["last_transfer_end"] = {{"flow_s", flow_end}, {"packet_s", packet_end}, {"error", error(flow_end, packet_end)}};

  std::ostringstream text;
  text << "crosscheck: " << w.transfers.size() << " transfers replayed under ns-3 (" << tcp.congestion.substr(5)
       << ", initial window " << tcp.initial_window << ")";
  if (local > 0) text << ", " << local << " local ones left out";
  text << "\n";
  if (!all.empty()) {
    text << "  flow-level transfer time against packet-level: median " << util::signed_percent(j["transfer_error"]["median_error"])
         << ", from " << util::signed_percent(j["transfer_error"]["min_error"]) << " to "
         << util::signed_percent(j["transfer_error"]["max_error"]) << "\n";
    text << "  flow-level round time against packet-level: median " << util::signed_percent(j["round_error"]["median_error"]) << ", from "
         << util::signed_percent(j["round_error"]["min_error"]) << " to " << util::signed_percent(j["round_error"]["max_error"]) << "\n";
    text << "  last transfer ends at " << flow_end << " s flow-level, " << packet_end << " s packet-level ("
         << util::signed_percent(error(flow_end, packet_end)) << ")\n";
  }
  return {csv.str(), j.dump(2) + "\n", text.str()};
}

}  // namespace edgetrain::packet
