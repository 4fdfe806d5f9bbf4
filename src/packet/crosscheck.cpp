#include "packet/crosscheck.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

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

// A round's span in one replay: from its first transfer's start to its last one's end.
struct Span {
  double start = INFINITY, end = -INFINITY;
  void add(double from, double to) {
    start = std::min(start, from);
    end = std::max(end, to);
  }
  double seconds() const { return end - start; }
};

nlohmann::json tcp_json(const TcpSettings& tcp) {
  return {{"congestion", tcp.congestion},
          {"recovery", tcp.recovery},
          {"mss_bytes", tcp.mss_bytes},
          {"initial_window_segments", tcp.initial_window},
          {"receive_window_bytes", tcp.receive_window_bytes},
          {"queue", tcp.queue.name()},
          {"min_rto_s", tcp.min_rto_s},
          {"delayed_ack_s", tcp.delayed_ack_s},
          {"data_retries", tcp.data_retries}};
}

}  // namespace

double error_to_range(double model_s, double lo_s, double hi_s) {
  if (model_s < lo_s) return error(model_s, lo_s);
  if (model_s > hi_s) return error(model_s, hi_s);
  return 0;
}

CrosscheckReport crosscheck_report(const Workload& w, const std::vector<QueueReplay>& replays, const TcpSettings& tcp,
                                   int64_t local) {
  const auto main = std::find_if(replays.begin(), replays.end(),
                                 [&](const QueueReplay& r) { return r.queue.name() == tcp.queue.name(); });
  if (main == replays.end()) throw std::logic_error("crosscheck: no replay under the default queue");
  const std::vector<Timing>& packet = main->timing;
  const std::vector<int64_t> flows = sharing(w);
  std::ostringstream csv;
  csv.precision(9);
  csv << "round,source,destination,bytes,flows_on_busiest_link,flow_start_s,flow_s,packet_start_s,packet_s,error,"
         "timeouts,backoff_s,anomaly,packet_min_s,packet_max_s\n";
  std::map<std::string, std::vector<double>> by_size, by_sharing;
  std::vector<double> all, clean;
  nlohmann::json anomalies = nlohmann::json::array();
  std::map<int64_t, Span> flow_rounds;
  std::map<int64_t, std::vector<Span>> packet_rounds;  // per queue, in the order of `replays`
  std::map<int64_t, bool> round_anomalous;
  double flow_end = 0, packet_end = 0;
  for (size_t i = 0; i < w.transfers.size(); ++i) {
    const Transfer& t = w.transfers[i];
    const double flow_s = t.flow_end_s - t.flow_start_s;
    const double e = error(flow_s, packet[i].seconds());
    double lo = INFINITY, hi = 0;
    std::vector<Span>& spans = packet_rounds[t.round];
    spans.resize(replays.size());
    for (size_t q = 0; q < replays.size(); ++q) {
      const Timing& r = replays[q].timing.at(i);
      lo = std::min(lo, r.seconds());
      hi = std::max(hi, r.seconds());
      spans[q].add(r.start_s, r.end_s);
    }
    const bool anomaly = is_anomaly(packet[i]);
    csv << t.round << ',' << t.src << ',' << t.dst << ',' << t.bytes << ',' << flows[i] << ',' << t.flow_start_s << ','
        << flow_s << ',' << packet[i].start_s << ',' << packet[i].seconds() << ',' << e << ',' << packet[i].timeouts << ','
        << packet[i].backoff_s << ',' << (anomaly ? 1 : 0) << ',' << lo << ',' << hi << '\n';
    all.push_back(e);
    if (anomaly) {
      round_anomalous[t.round] = true;
      anomalies.push_back({{"transfer", i},
                           {"round", t.round},
                           {"source", t.src},
                           {"destination", t.dst},
                           {"bytes", t.bytes},
                           {"packet_s", packet[i].seconds()},
                           {"timeouts", packet[i].timeouts},
                           {"backoff_s", packet[i].backoff_s}});
    } else {
      clean.push_back(e);
      by_size[size_class(t.bytes)].push_back(e);
      by_sharing[sharing_class(flows[i])].push_back(e);
    }
    flow_rounds[t.round].add(t.flow_start_s, t.flow_end_s);
    flow_end = std::max(flow_end, t.flow_end_s);
    packet_end = std::max(packet_end, packet[i].end_s);
  }
  const auto main_index = static_cast<size_t>(main - replays.begin());
  nlohmann::json j;
  j["tcp"] = tcp_json(tcp);
  j["queues"] = nlohmann::json::array();
  for (const QueueReplay& r : replays) {
    int64_t count = 0;
    for (const Timing& t : r.timing) count += is_anomaly(t) ? 1 : 0;
    j["queues"].push_back({{"queue", r.queue.name()}, {"anomalies", count}});
  }
  j["transfers"] = w.transfers.size();
  j["local_transfers_not_replayed"] = local;
  j["reference_anomalies"] = anomalies;
  j["anomaly_rule"] = "a transfer that spent more than " + util::format_number(100 * kAnomalyBackoffShare) +
                      "% of its time waiting for retransmission timeouts in the replay under " + tcp.queue.name();
  j["transfer_error"] = stats(all);
  j["transfer_error_without_anomalies"] = stats(clean);
  // Sizes and sharing describe the flow model, not the reference's faults: anomalies left out.
  for (const auto& [name, errors] : by_size) j["transfer_error_by_size"][name] = stats(errors);
  for (const auto& [name, errors] : by_sharing) j["transfer_error_by_sharing"][name] = stats(errors);
  std::vector<double> round_errors, clean_round_errors, range_errors;
  int64_t inside = 0;
  j["rounds"] = nlohmann::json::array();
  for (const auto& [round, f] : flow_rounds) {
    const std::vector<Span>& spans = packet_rounds.at(round);
    const double packet_s = spans[main_index].seconds();
    double lo = INFINITY, hi = 0;
    for (const Span& s : spans) {
      lo = std::min(lo, s.seconds());
      hi = std::max(hi, s.seconds());
    }
    const double e = error(f.seconds(), packet_s), to_range = error_to_range(f.seconds(), lo, hi);
    round_errors.push_back(e);
    if (!round_anomalous.count(round)) clean_round_errors.push_back(e);
    range_errors.push_back(to_range);
    inside += to_range == 0 ? 1 : 0;
    nlohmann::json by_queue = nlohmann::json::object();
    for (size_t q = 0; q < replays.size(); ++q) by_queue[replays[q].queue.name()] = spans[q].seconds();
    j["rounds"].push_back({{"round", round},
                           {"flow_s", f.seconds()},
                           {"packet_s", packet_s},
                           {"error", e},
                           {"reference_anomaly", round_anomalous.count(round) > 0},
                           {"packet_s_by_queue", by_queue},
                           {"queue_range_s", {lo, hi}},
                           {"error_to_queue_range", to_range}});
  }
  j["round_error"] = stats(round_errors);
  j["round_error_without_anomalies"] = stats(clean_round_errors);
  j["round_error_to_queue_range"] = stats(range_errors);
  j["rounds_inside_queue_range"] = inside;
  j["last_transfer_end"] = {{"flow_s", flow_end}, {"packet_s", packet_end}, {"error", error(flow_end, packet_end)}};

  std::ostringstream text;
  text << "crosscheck: " << w.transfers.size() << " transfers replayed under ns-3 (" << tcp.congestion.substr(5)
       << ", initial window " << tcp.initial_window << ", " << tcp.queue.name() << " queues; " << replays.size()
       << " queue configurations for TCP's range)";
  if (local > 0) text << ", " << local << " local ones left out";
  text << "\n";
  const auto range = [](const nlohmann::json& s) {
    return "median " + util::signed_percent(s["median_error"]) + ", from " + util::signed_percent(s["min_error"]) + " to " +
           util::signed_percent(s["max_error"]);
  };
  if (!all.empty()) {
    text << "  flow-level transfer time against packet-level: " << range(j["transfer_error"]) << "\n";
    text << "  flow-level round time against packet-level: " << range(j["round_error"]) << "\n";
    text << "  rounds inside TCP's range across queues: " << inside << " of " << flow_rounds.size();
    if (inside < static_cast<int64_t>(flow_rounds.size()))
      text << " (outside by at most " << util::signed_percent(j["round_error_to_queue_range"]["max_abs_error"]).substr(1) << ")";
    text << "\n";
    if (!anomalies.empty()) {
      text << "  reference anomalies: " << anomalies.size() << " transfers spent most of their time in ns-3's timeout "
           << "back-off (crosscheck.json lists them); without them: transfers ";
      text << (clean.empty() ? std::string("none left") : range(j["transfer_error_without_anomalies"]));
      text << "; rounds " << (clean_round_errors.empty() ? std::string("none left") : range(j["round_error_without_anomalies"]))
           << "\n";
    }
    text << "  last transfer ends at " << flow_end << " s flow-level, " << packet_end << " s packet-level ("
         << util::signed_percent(error(flow_end, packet_end)) << ")\n";
  }
  return {csv.str(), j.dump(2) + "\n", text.str()};
}

}  // namespace edgetrain::packet
