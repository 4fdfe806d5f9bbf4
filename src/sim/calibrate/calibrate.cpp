#include "sim/calibrate/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <simgrid/s4u.hpp>

#include "packet/crosscheck.hpp"
#include "packet/error.hpp"
#include "packet/replay.hpp"
#include "platform/check.hpp"
#include "sim/calibrate/flow_experiments.hpp"
#include "sim/calibrate/route_classes.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/network_calibration.hpp"
#include "sim/core/platform.hpp"
#include "sim/core/stop_signal.hpp"
#include "util/format.hpp"
#include "util/stop_flag.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

namespace {

// Without --server, every ordered pair of hosts is a route to measure: beyond this many hosts the
// aggregator has to be named.
constexpr size_t kMaxHostsWithoutServer = 100;
// A concurrent round has at most this many flows (the first hosts in the platform's order).
constexpr size_t kMaxRoundFlows = 40;
const std::vector<double> kRoundSizes = {1e5, 1e6, 1e7};
// Sizes drawn at random per class to check the fit between its points.
constexpr size_t kRandomSizes = 6;

packet::Workload workload_of(const std::vector<Flow>& flows) {
  packet::Workload w;
  std::map<const sg4::Link*, size_t> index;
  for (const Flow& f : flows) {
    packet::Transfer t;
    t.src = f.from->get_name();
    t.dst = f.to->get_name();
    t.bytes = f.bytes;
    for (const sg4::Link* l : links_between(f.from, f.to)) {
      const auto [it, added] = index.emplace(l, w.links.size());
      if (added) w.links.push_back(packet_link(l));
      t.route.push_back(it->second);
    }
    w.transfers.push_back(std::move(t));
  }
  return w;
}

std::vector<packet::Timing> packet_timing(const std::vector<Flow>& flows, const packet::QueueConfig& queue = {}) {
  packet::TcpSettings tcp;
  tcp.queue = queue;
  return packet::replay(workload_of(flows), tcp);
}

std::vector<double> seconds_of(const std::vector<packet::Timing>& timing) {
  std::vector<double> s;
  for (const packet::Timing& t : timing) s.push_back(t.seconds());
  return s;
}

// Sizes drawn log-uniformly between the smallest fitted size and `max_bytes`, the same every time
// (a fixed stream of splitmix64): where the fit is checked between the points it saw.
std::vector<double> random_sizes(size_t count, double max_bytes) {
  std::vector<double> sizes;
  uint64_t state = 0x9e3779b97f4a7c15ull;
  const double lo = std::log(fitted_sizes().front()), hi = std::log(max_bytes);
  for (size_t i = 0; i < count; ++i) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    const double u = static_cast<double>(z >> 11) * 0x1.0p-53;
    sizes.push_back(std::round(std::exp(lo + u * (hi - lo))));
  }
  return sizes;
}

double error(double model_s, double packet_s) { return model_s / packet_s - 1; }

// Why the packet-level reference cannot carry a route (replay.hpp's bounds), or "".
std::string unreplayable(const std::vector<sg4::Link*>& links) {
  for (const sg4::Link* l : links)
    if (std::string why = packet::unreplayable(packet_link(l)); !why.empty()) return why;
  return {};
}

// "pi-1 -> cloud": a route class's first route, as reports name the class.
std::string route_name(const RouteClassInfo& rc) {
  return rc.routes.front().first->get_name() + " -> " + rc.routes.front().second->get_name();
}

nlohmann::json round_json(const std::vector<double>& seconds) {
  const auto [lo, hi] = std::minmax_element(seconds.begin(), seconds.end());
  return {{"round_s", *hi}, {"spread_s", *hi - *lo}};
}

void progress(bool quiet, const std::string& line) {
  if (!quiet) std::fprintf(stderr, "calibrate: %s\n", line.c_str());
}

}  // namespace

const std::vector<double>& fitted_sizes() {
  static const std::vector<double> sizes = {1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 2e7};
  return sizes;
}

const std::vector<double>& held_out_sizes() {
  // 12.8 KB, the quickstart MLP's message (407,144 B), 4 MB and 14 MB: the issue's own checkpoints.
  static const std::vector<double> sizes = {12800, 407144, 4e6, 1.4e7};
  return sizes;
}

packet::Calibration calibrate_platform(const CalibrateOptions& options) {
  const platform::PlatformInfo info = platform::check_platform_file(options.platform);
  // The routes calibrate walks, checked as run and validate check theirs: SimGrid aborts on a route
  // out of a routing="None" zone or into a zone inside a Vivaldi zone.
  if (!options.server.empty()) {
    for (const auto& [host, where] : info.hosts) check_routable(info, "calibrate", host, options.server);
  } else if (info.hosts.size() <= kMaxHostsWithoutServer) {
    for (const auto& [from, where] : info.hosts)
      for (const auto& [to, there] : info.hosts) check_routable(info, "calibrate", from, to);
  }
  std::unique_ptr<sg4::Engine> engine =
      keeping_interrupt_handler([&] { return make_engine(options.simgrid_args, info, kSmallStackKiB, true); });
  engine->load_platform(options.platform.string());
  engine->seal_platform();  // cluster zones build their routes when sealed
  NetworkCalibration hooks;
  hooks.install(*engine);

  sg4::Host* server = nullptr;
  if (!options.server.empty()) {
    server = engine->host_by_name_or_null(options.server);
    if (!server) throw PlatformError("--server: " + options.platform.string() + " has no host \"" + options.server + "\"");
  } else if (engine->get_host_count() > kMaxHostsWithoutServer) {
    throw PlatformError(options.platform.string() + " has " + std::to_string(engine->get_host_count()) +
                        " hosts: name the aggregator with --server HOST (calibrate then measures the routes to and "
                        "from it)");
  }
  // Classes the packet-level reference cannot carry (a link too slow or too long for TCP's timers)
  // are left out and named: their routes take the model fitted to every class, with no band.
  std::vector<RouteClassInfo> classes;
  nlohmann::json skipped = nlohmann::json::array();
  std::string first_refusal;
  for (RouteClassInfo& rc : route_classes(*engine, server)) {
    const std::string why = unreplayable(rc.links);
    if (why.empty()) {
      classes.push_back(std::move(rc));
      continue;
    }
    if (first_refusal.empty()) first_refusal = why;
    skipped.push_back({{"example", route_name(rc)}, {"why", why}});
    progress(options.quiet, "left out: " + skipped.back()["example"].get<std::string>() + " (" + why + ")");
  }
  if (classes.empty() && !first_refusal.empty()) throw packet::MappingError(first_refusal);
  if (classes.empty()) throw PlatformError(options.platform.string() + ": no route with a link to calibrate");

  packet::Calibration c;
  c.platform = options.platform.filename().string();
  c.fingerprint = platform_fingerprint(*engine);

  // Single flows under ns-3: every class at every fitted size, the held-out checkpoints, and sizes
  // drawn at random between them (the fit never sees either).
  std::vector<Experiment> experiments;
  std::vector<std::vector<double>> packet;
  struct Point {
    size_t cls;
    double bytes;
    const char* kind;  // "fitted", "held out", "random"
    bool anomaly;      // a reference anomaly (replay.hpp): left out of the fit and the figures
    bool fitted() const { return std::string(kind) == "fitted"; }
  };
  std::vector<Point> points;
  std::vector<std::vector<packet::LonePoint>> class_points(classes.size());
  std::vector<packet::LonePoint> all_points;
  nlohmann::json anomalies = nlohmann::json::array();
  const auto note_anomalies = [&](const std::vector<packet::Timing>& timing, const Experiment& e, const std::string& what) {
    for (size_t f = 0; f < timing.size(); ++f) {
      if (!packet::is_anomaly(timing[f])) continue;
      anomalies.push_back({{"experiment", what},
                           {"source", e[f].from->get_name()},
                           {"destination", e[f].to->get_name()},
                           {"bytes", e[f].bytes},
                           {"packet_s", timing[f].seconds()},
                           {"timeouts", timing[f].timeouts},
                           {"backoff_s", timing[f].backoff_s}});
    }
  };
  const std::vector<double> randoms = random_sizes(kRandomSizes, options.max_bytes);
  for (size_t k = 0; k < classes.size(); ++k) {
    progress(options.quiet,
             "route class " + std::to_string(k + 1) + " of " + std::to_string(classes.size()) + " (" + route_name(classes[k]) + ")");
    const auto [one_way, bottleneck] = packet::Calibration::path_of(classes[k].shape);
    for (const auto& [kind, sizes] : {std::pair{"fitted", &fitted_sizes()}, std::pair{"held out", &held_out_sizes()},
                                      std::pair{"random", &randoms}}) {
      for (const double bytes : *sizes) {
        if (bytes > options.max_bytes) continue;
        util::throw_if_stopped("calibrating");
        const auto [from, to] = classes[k].routes.front();
        experiments.push_back({{from, to, static_cast<int64_t>(bytes)}});
        const std::vector<packet::Timing> timing = packet_timing(experiments.back());
        note_anomalies(timing, experiments.back(), "lone");
        packet.push_back(seconds_of(timing));
        points.push_back({k, bytes, kind, packet::is_anomaly(timing[0])});
        // An anomaly is the reference's fault, not TCP's: the fit never sees one.
        if (points.back().fitted() && !points.back().anomaly) {
          class_points[k].push_back({bytes, one_way, bottleneck, timing[0].seconds()});
          all_points.push_back(class_points[k].back());
        }
      }
    }
  }
  c.model = packet::fit_tcp_model(all_points, packet::TcpModel{});
  for (size_t k = 0; k < classes.size(); ++k) {
    packet::RouteClass rc;
    rc.links = classes[k].shape;
    rc.example = route_name(classes[k]);
    rc.model = class_points[k].empty() ? c.model : packet::fit_tcp_model(class_points[k], packet::TcpModel{});
    c.classes.push_back(std::move(rc));
  }

  // Concurrent rounds: every host that has a route to the aggregator (or to the host most routes
  // lead to) sends at once, and the aggregator sends to every one of them at once; each under every
  // router queue of the spread, whose range is TCP's own spread.
  sg4::Host* hub = server;
  if (!hub) {
    std::map<sg4::Host*, size_t> incoming;
    for (const RouteClassInfo& rc : classes)
      for (const auto& [from, to] : rc.routes) ++incoming[to];
    hub = std::max_element(incoming.begin(), incoming.end(), [](const auto& a, const auto& b) {
            return a.second < b.second || (a.second == b.second && a.first->get_name() > b.first->get_name());
          })->first;
  }
  std::vector<sg4::Host*> members;
  for (sg4::Host* h : engine->get_all_hosts()) {
    if (h == hub || members.size() == kMaxRoundFlows) continue;
    const std::vector<sg4::Link*> up = links_between(h, hub), down = links_between(hub, h);
    if (!up.empty() && !down.empty() && unreplayable(up).empty() && unreplayable(down).empty()) members.push_back(h);
  }
  const size_t singles = experiments.size();
  struct RoundInfo {
    std::string direction;
    double bytes;
    std::vector<std::vector<double>> by_queue;  // per queue of the spread, per flow
    bool anomaly = false;                       // under the default queue
  };
  std::vector<RoundInfo> rounds;
  const std::vector<packet::QueueConfig> queues = packet::queue_spread();
  if (members.size() >= 2) {
    for (const double bytes : kRoundSizes) {
      if (bytes > options.max_bytes) continue;
      for (const bool up : {true, false}) {
        Experiment e;
        for (sg4::Host* m : members) e.push_back(up ? Flow{m, hub, static_cast<int64_t>(bytes)} : Flow{hub, m, static_cast<int64_t>(bytes)});
        progress(options.quiet, std::string("a round of ") + std::to_string(e.size()) + " flows " +
                                    (up ? "to " : "from ") + hub->get_name() + " under " + std::to_string(queues.size()) +
                                    " router queues");
        RoundInfo round{up ? "to " + hub->get_name() : "from " + hub->get_name(), bytes, {}, false};
        for (const packet::QueueConfig& queue : queues) {
          util::throw_if_stopped("calibrating");
          const std::vector<packet::Timing> timing = packet_timing(e, queue);
          const bool main = queue.name() == packet::TcpSettings{}.queue.name();
          if (main) {
            note_anomalies(timing, e, "round " + round.direction);
            for (const packet::Timing& t : timing) round.anomaly = round.anomaly || packet::is_anomaly(t);
            packet.push_back(seconds_of(timing));
          }
          round.by_queue.push_back(seconds_of(timing));
        }
        experiments.push_back(e);
        rounds.push_back(std::move(round));
      }
    }
  }

  // The same transfers under the flow model: CM02 as it is, the slow-start model at its defaults
  // (the default network model), and calibrated.
  const packet::Calibration defaults;
  const FlowTimes flow = time_flows(*engine, hooks, {nullptr, &defaults, &c}, experiments);
  const auto& cm02 = flow[0];
  const auto& tcp = flow[1];
  const auto& calibrated = flow[2];
  util::throw_if_stopped("calibrating");
  nlohmann::json single = nlohmann::json::array(), concurrent = nlohmann::json::array();
  double worst[2][3] = {{0, 0, 0}, {0, 0, 0}};  // [checked: held out or random][CM02, TCP model, calibrated]
  double size_lo = INFINITY, size_hi = 0;
  for (size_t i = 0; i < singles; ++i) {
    const double p = packet[i][0], before = cm02[i][0], model = tcp[i][0], after = calibrated[i][0];
    const bool anomaly = points[i].anomaly;
    single.push_back({{"class", c.classes[points[i].cls].example},
                      {"bytes", points[i].bytes},
                      {"kind", points[i].kind},
                      {"held_out", !points[i].fitted()},
                      {"reference_anomaly", anomaly},
                      {"packet_s", p},
                      {"flow_s", before},
                      {"tcp_s", model},
                      {"calibrated_s", after},
                      {"flow_error", error(before, p)},
                      {"tcp_error", error(model, p)},
                      {"calibrated_error", error(after, p)}});
    if (anomaly) continue;
    size_lo = std::min(size_lo, points[i].bytes);
    size_hi = std::max(size_hi, points[i].bytes);
    double* w = worst[points[i].fitted() ? 0 : 1];
    w[0] = std::max(w[0], std::fabs(error(before, p)));
    w[1] = std::max(w[1], std::fabs(error(model, p)));
    w[2] = std::max(w[2], std::fabs(error(after, p)));
  }
  // Rounds: against the default queue (with and without anomalies), and against TCP's range.
  double round_worst[3] = {0, 0, 0}, clean_worst[3] = {0, 0, 0}, range_worst[3] = {0, 0, 0};
  size_t round_flows = 0;
  for (size_t r = 0; r < rounds.size(); ++r) {
    const size_t i = singles + r;
    const nlohmann::json p = round_json(packet[i]), b = round_json(cm02[i]), t = round_json(tcp[i]),
                         a = round_json(calibrated[i]);
    const double eb = error(b["round_s"], p["round_s"]), et = error(t["round_s"], p["round_s"]),
                 ea = error(a["round_s"], p["round_s"]);
    double lo = INFINITY, hi = 0;
    nlohmann::json by_queue = nlohmann::json::object();
    for (size_t q = 0; q < queues.size(); ++q) {
      const double round_s = *std::max_element(rounds[r].by_queue[q].begin(), rounds[r].by_queue[q].end());
      by_queue[queues[q].name()] = round_s;
      lo = std::min(lo, round_s);
      hi = std::max(hi, round_s);
    }
    const double rb = packet::error_to_range(b["round_s"], lo, hi), rt = packet::error_to_range(t["round_s"], lo, hi),
                 ra = packet::error_to_range(a["round_s"], lo, hi);
    const double errors[3] = {eb, et, ea}, outside[3] = {rb, rt, ra};
    for (size_t m = 0; m < 3; ++m) {
      round_worst[m] = std::max(round_worst[m], std::fabs(errors[m]));
      if (!rounds[r].anomaly) clean_worst[m] = std::max(clean_worst[m], std::fabs(errors[m]));
      range_worst[m] = std::max(range_worst[m], std::fabs(outside[m]));
    }
    round_flows = std::max(round_flows, packet[i].size());
    concurrent.push_back({{"direction", rounds[r].direction},
                          {"bytes", rounds[r].bytes},
                          {"flows", packet[i].size()},
                          {"packet", p},
                          {"packet_round_s_by_queue", by_queue},
                          {"queue_range_s", {lo, hi}},
                          {"reference_anomaly", rounds[r].anomaly},
                          {"flow", b},
                          {"tcp", t},
                          {"calibrated", a},
                          {"flow_error", eb},
                          {"tcp_error", et},
                          {"calibrated_error", ea},
                          {"flow_error_to_queue_range", rb},
                          {"tcp_error_to_queue_range", rt},
                          {"calibrated_error_to_queue_range", ra}});
  }
  const auto pair = [](const double* w) { return nlohmann::json{{"flow", w[0]}, {"tcp", w[1]}, {"calibrated", w[2]}}; };
  nlohmann::json summary = {{"single_fitted_max_abs_error", pair(worst[0])},
                            {"single_held_out_max_abs_error", pair(worst[1])},
                            {"round_max_abs_error", pair(round_worst)},
                            {"round_max_abs_error_without_anomalies", pair(clean_worst)},
                            {"round_max_abs_error_to_queue_range", pair(range_worst)},
                            {"reference_anomalies", anomalies.size()},
                            {"queues", nlohmann::json::array()}};
  for (const packet::QueueConfig& q : queues) summary["queues"].push_back(q.name());
  // What the measurements cover: a run's band holds only inside it (sim/core/fidelity.cpp).
  summary["coverage"] = {{"lone_bytes", {size_lo, size_hi}},
                         {"round_flows", round_flows},
                         {"round_bytes", rounds.empty() ? nlohmann::json(nullptr)
                                                        : nlohmann::json({rounds.front().bytes, rounds.back().bytes})}};
  c.report = {{"single", single},
              {"concurrent", concurrent},
              {"anomalies", anomalies},
              {"skipped_classes", skipped},
              {"summary", summary}};
  return c;
}

std::string calibration_summary(const packet::Calibration& c) {
  const nlohmann::json& s = c.report.at("summary");
  const auto line = [&](const std::string& what, const char* key) {
    return "  " + what + ": CM02 " + util::signed_percent(s[key]["flow"]).substr(1) + ", TCP model " +
           util::signed_percent(s[key]["tcp"]).substr(1) + ", calibrated " +
           util::signed_percent(s[key]["calibrated"]).substr(1) + "\n";
  };
  double lo = 1, hi = 1;
  for (const packet::RouteClass& rc : c.classes) {
    lo = std::min(lo, rc.model.rate_factor);
    hi = std::max(hi, rc.model.rate_factor);
  }
  const size_t skipped = c.report.value("skipped_classes", nlohmann::json::array()).size();
  std::string out = "calibration of " + c.platform + ": " + std::to_string(c.classes.size()) + " route classes" +
                    (skipped > 0 ? " (" + std::to_string(skipped) + " left out: the reference cannot carry them)" : "") +
                    ", the slow-start TCP model's rate fitted to each (" +
                    util::format_number(std::round(lo * 1000) / 1000) + " to " +
                    util::format_number(std::round(hi * 1000) / 1000) + " of the bottleneck's frame rate)\n";
  out += "largest error against ns-3 (|model / packet - 1|):\n";
  out += line("lone transfers, fitted sizes", "single_fitted_max_abs_error");
  out += line("lone transfers, held-out and random sizes", "single_held_out_max_abs_error");
  if (!c.report.at("concurrent").empty()) {
    out += line("concurrent rounds, " + packet::TcpSettings{}.queue.name(), "round_max_abs_error");
    out += line("concurrent rounds, outside TCP's range across " + std::to_string(s["queues"].size()) + " queues",
                "round_max_abs_error_to_queue_range");
  }
  const size_t anomalies = s.value("reference_anomalies", size_t{0});
  if (anomalies > 0)
    out += "  reference anomalies: " + std::to_string(anomalies) +
           " transfers spent most of their time in ns-3's timeout back-off (left out of the fit and the lone figures; "
           "rounds without them: CM02 " +
           util::signed_percent(s["round_max_abs_error_without_anomalies"]["flow"]).substr(1) + ", calibrated " +
           util::signed_percent(s["round_max_abs_error_without_anomalies"]["calibrated"]).substr(1) + ")\n";
  return out;
}

}  // namespace edgetrain::sim
