#include "sim/calibrate/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <simgrid/s4u.hpp>

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
constexpr size_t kMaxRoundFlows = 16;
const std::vector<double> kRoundSizes = {1e5, 1e6, 1e7};

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

std::vector<double> packet_seconds(const std::vector<Flow>& flows) {
  std::vector<double> s;
  for (const packet::Timing& t : packet::replay(workload_of(flows))) s.push_back(t.seconds());
  return s;
}

double error(double model_s, double packet_s) { return model_s / packet_s - 1; }

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
  const std::vector<RouteClassInfo> classes = route_classes(*engine, server);
  if (classes.empty()) throw PlatformError(options.platform.string() + ": no route with a link to calibrate");

  packet::Calibration c;
  c.platform = options.platform.filename().string();
  c.fingerprint = platform_fingerprint(*engine);

  // Single flows under ns-3: every class at every size.
  std::vector<Experiment> experiments;
  std::vector<std::vector<double>> packet;
  struct Point {
    size_t cls;
    double bytes;
    bool held_out;
  };
  std::vector<Point> points;
  std::vector<packet::LonePoint> fit_points;
  for (size_t k = 0; k < classes.size(); ++k) {
    progress(options.quiet, "route class " + std::to_string(k + 1) + " of " + std::to_string(classes.size()) + " (" +
                                classes[k].routes.front().first->get_name() + " -> " +
                                classes[k].routes.front().second->get_name() + ")");
    for (const bool held_out : {false, true}) {
      for (const double bytes : held_out ? held_out_sizes() : fitted_sizes()) {
        if (bytes > options.max_bytes) continue;
        util::throw_if_stopped("calibrating");
        const auto [from, to] = classes[k].routes.front();
        experiments.push_back({{from, to, static_cast<int64_t>(bytes)}});
        packet.push_back(packet_seconds(experiments.back()));
        points.push_back({k, bytes, held_out});
        if (!held_out) {
          const auto [one_way, bottleneck] = packet::Calibration::path_of(classes[k].shape);
          fit_points.push_back({bytes, one_way, bottleneck, packet.back()[0]});
        }
      }
    }
  }
  c.model = packet::fit_tcp_model(fit_points, packet::TcpModel{});
  for (size_t k = 0; k < classes.size(); ++k) {
    packet::RouteClass rc;
    rc.links = classes[k].shape;
    rc.example = classes[k].routes.front().first->get_name() + " -> " + classes[k].routes.front().second->get_name();
    const auto [one_way, bottleneck] = packet::Calibration::path_of(rc.links);
    for (size_t i = 0; i < points.size(); ++i) {
      if (points[i].cls != k || points[i].held_out) continue;
      rc.sizes.push_back(points[i].bytes);
      rc.ratios.push_back(packet[i][0] / c.model.lone_transfer_s(points[i].bytes, one_way, bottleneck));
    }
    c.classes.push_back(std::move(rc));
  }

  // Concurrent rounds: every host that has a route to the aggregator (or to the host most routes
  // lead to) sends at once, and the aggregator sends to every one of them at once.
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
    if (!links_between(h, hub).empty() && !links_between(hub, h).empty()) members.push_back(h);
  }
  const size_t singles = experiments.size();
  struct RoundInfo {
    std::string direction;
    double bytes;
  };
  std::vector<RoundInfo> rounds;
  if (members.size() >= 2) {
    for (const double bytes : kRoundSizes) {
      if (bytes > options.max_bytes) continue;
      for (const bool up : {true, false}) {
        util::throw_if_stopped("calibrating");
        Experiment e;
        for (sg4::Host* m : members) e.push_back(up ? Flow{m, hub, static_cast<int64_t>(bytes)} : Flow{hub, m, static_cast<int64_t>(bytes)});
        progress(options.quiet, std::string("a round of ") + std::to_string(e.size()) + " flows " +
                                    (up ? "to " : "from ") + hub->get_name());
        experiments.push_back(e);
        packet.push_back(packet_seconds(e));
        rounds.push_back({up ? "to " + hub->get_name() : "from " + hub->get_name(), bytes});
      }
    }
  }

  // The same transfers under the flow model, without and with the calibration.
  const FlowTimes flow = time_flows(*engine, hooks, c, experiments);
  util::throw_if_stopped("calibrating");
  nlohmann::json single = nlohmann::json::array(), concurrent = nlohmann::json::array();
  double worst[2][2] = {{0, 0}, {0, 0}};  // [held out][after]
  for (size_t i = 0; i < singles; ++i) {
    const double p = packet[i][0], before = flow.before[i][0], after = flow.after[i][0];
    single.push_back({{"class", c.classes[points[i].cls].example},
                      {"bytes", points[i].bytes},
                      {"held_out", points[i].held_out},
                      {"packet_s", p},
                      {"flow_s", before},
                      {"calibrated_s", after},
                      {"flow_error", error(before, p)},
                      {"calibrated_error", error(after, p)}});
    // The goal's range: 12.8 KB to 14 MB.
    if (points[i].bytes < 12800 || points[i].bytes > 1.4e7) continue;
    double* w = worst[points[i].held_out ? 1 : 0];
    w[0] = std::max(w[0], std::fabs(error(before, p)));
    w[1] = std::max(w[1], std::fabs(error(after, p)));
  }
  double round_worst[2] = {0, 0};
  for (size_t r = 0; r < rounds.size(); ++r) {
    const size_t i = singles + r;
    const nlohmann::json p = round_json(packet[i]), b = round_json(flow.before[i]), a = round_json(flow.after[i]);
    const double eb = error(b["round_s"], p["round_s"]), ea = error(a["round_s"], p["round_s"]);
    round_worst[0] = std::max(round_worst[0], std::fabs(eb));
    round_worst[1] = std::max(round_worst[1], std::fabs(ea));
    concurrent.push_back({{"direction", rounds[r].direction},
                          {"bytes", rounds[r].bytes},
                          {"flows", packet[i].size()},
                          {"packet", p},
                          {"flow", b},
                          {"calibrated", a},
                          {"flow_error", eb},
                          {"calibrated_error", ea}});
  }
  c.report = {{"single", single},
              {"concurrent", concurrent},
              {"summary",
               {{"single_fitted_max_abs_error", {{"flow", worst[0][0]}, {"calibrated", worst[0][1]}}},
                {"single_held_out_max_abs_error", {{"flow", worst[1][0]}, {"calibrated", worst[1][1]}}},
                {"round_max_abs_error", {{"flow", round_worst[0]}, {"calibrated", round_worst[1]}}}}}};
  return c;
}

std::string calibration_summary(const packet::Calibration& c) {
  const nlohmann::json& s = c.report.at("summary");
  const auto line = [&](const char* what, const char* key) {
    return std::string("  ") + what + ": flow model " + util::signed_percent(s[key]["flow"]).substr(1) + ", calibrated " +
           util::signed_percent(s[key]["calibrated"]).substr(1) + "\n";
  };
  std::string out = "calibration of " + c.platform + ": " + std::to_string(c.classes.size()) +
                    " route classes; TCP model: growth " + std::to_string(c.model.growth).substr(0, 4) +
                    " per round trip, efficiency " + std::to_string(c.model.efficiency).substr(0, 5) + "\n";
  out += "largest error against ns-3 (12.8 KB to 14 MB, |flow / packet - 1|):\n";
  out += line("single flows, fitted sizes", "single_fitted_max_abs_error");
  out += line("single flows, held-out sizes", "single_held_out_max_abs_error");
  if (!c.report.at("concurrent").empty()) out += line("concurrent rounds", "round_max_abs_error");
  return out;
}

}  // namespace edgetrain::sim
