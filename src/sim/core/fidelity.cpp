#include "sim/core/fidelity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <simgrid/s4u.hpp>

#include "compute/fidelity.hpp"
#include "packet/tcp_model.hpp"
#include "sim/core/network_calibration.hpp"
#include "util/format.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

namespace {

// CM02's time of a lone transfer against the TCP model's, over every device's routes both ways.
nlohmann::json lone_transfer_band(const FidelityInput& in) {
  const packet::TcpModel tcp;
  double lo = INFINITY, hi = -INFINITY;
  for (const sg4::Host* d : in.devices) {
    for (const auto& [from, to] : {std::pair{d, in.server}, std::pair{in.server, d}}) {
      if (from == to) continue;
      std::vector<sg4::Link*> links;
      double latency = 0;
      from->route_to(to, links, &latency);
      if (links.empty()) continue;
      const auto [one_way, bottleneck] = packet::Calibration::path_of(route_shape(links));
      const auto bytes = static_cast<double>(in.message_bytes);
      const double e = (one_way + bytes / bottleneck) / tcp.lone_transfer_s(bytes, one_way, bottleneck) - 1;
      lo = std::min(lo, e);
      hi = std::max(hi, e);
    }
  }
  if (lo > hi) return nullptr;
  return {{"min", lo}, {"max", hi}};
}

// The compute model and its profiles: a device class's band from its published checks (the largest
// of several classes' bands, none when one has none); a profile file has none (its points are the
// user's machine, not published steps).
nlohmann::json compute_fidelity(const FidelityInput& in) {
  auto json_of = [](const compute::StepFidelity& step) {
    return nlohmann::json{{"model", step.compute_model},
                          {"profile", step.profile.empty() ? nlohmann::json(nullptr) : nlohmann::json(step.profile)},
                          {"expected_step_error", step.error_band ? nlohmann::json(*step.error_band) : nullptr},
                          {"basis", step.basis}};
  };
  if (in.profiles.empty()) return json_of(compute::step_fidelity(in.model, ""));
  if (!in.profile_file.empty()) {
    return json_of({"roofline-by-layer-kind", in.profiles.front().name, std::nullopt,
                    "a profile file (" + in.profile_file + "): fitted to its machine's own steps, not to published ones"});
  }
  compute::StepFidelity all = compute::step_fidelity(in.model, in.profiles.front().name);
  for (size_t i = 1; i < in.profiles.size(); ++i) {
    const compute::StepFidelity one = compute::step_fidelity(in.model, in.profiles[i].name);
    all.profile += ", " + one.profile;
    if (!one.error_band) all.basis = one.basis;
    all.error_band = all.error_band && one.error_band ? std::optional(std::max(*all.error_band, *one.error_band))
                                                      : std::nullopt;
  }
  if (in.profiles.size() > 1 && all.error_band) all.basis = "the largest of its profiles' held-out errors on published steps";
  return json_of(all);
}

// The first device route of no class the calibration measured, named, or "".
std::string unmeasured_route(const FidelityInput& in) {
  for (const sg4::Host* d : in.devices) {
    for (const auto& [from, to] : {std::pair{d, in.server}, std::pair{in.server, d}}) {
      if (from == to) continue;
      std::vector<sg4::Link*> links;
      from->route_to(to, links, nullptr);
      if (!links.empty() && &in.calibration->model_of(route_shape(links)) == &in.calibration->model)
        return "the route " + from->get_name() + " -> " + to->get_name() + " is of no class calibrate measured";
    }
  }
  return {};
}

// A calibration's band holds only where its measurements reach: the run's message among the lone
// sizes it measured, every device route of a class it measured, and no more devices than its rounds
// had flows. Elsewhere the band is unknown, with the reason.
nlohmann::json calibrated_band(const FidelityInput& in) {
  const nlohmann::json& s = in.calibration->report.at("summary");
  const auto bytes = static_cast<double>(in.message_bytes);
  nlohmann::json band = {{"message_bytes", in.message_bytes}, {"lone_max_abs", nullptr}, {"round_max_abs", nullptr}};
  const nlohmann::json& cover = s.at("coverage");
  std::string lone_gap;
  if (in.devices.empty())
    lone_gap = "a population's devices take other hosts every round: no route was measured for them";
  else if (bytes < cover["lone_bytes"][0].get<double>() || bytes > cover["lone_bytes"][1].get<double>())
    lone_gap = "the run's message (" + util::format_number(bytes) + " B) is outside the sizes calibrate measured";
  if (lone_gap.empty()) lone_gap = unmeasured_route(in);
  // The largest error measured at any size, fitted or not: a run's message is neither.
  if (lone_gap.empty())
    band["lone_max_abs"] = std::max(s.at("single_fitted_max_abs_error").at("calibrated").get<double>(),
                                    s.at("single_held_out_max_abs_error").at("calibrated").get<double>());
  else band["lone_unknown"] = lone_gap;
  std::string round_gap;
  if (cover["round_bytes"].is_null()) round_gap = "calibrate measured no round";
  else if (in.devices.size() > cover["round_flows"].get<size_t>())
    round_gap = std::to_string(in.devices.size()) + " devices: calibrate's rounds had " +
                std::to_string(cover["round_flows"].get<size_t>()) + " flows";
  else if (bytes < cover["round_bytes"][0].get<double>() || bytes > cover["round_bytes"][1].get<double>())
    round_gap = "the run's message is outside the round sizes calibrate measured";
  // A round is its transfers: never tighter than a lone one's band, wider where rounds measured wider.
  if (round_gap.empty() && !band["lone_max_abs"].is_null())
    band["round_max_abs"] = std::max(s.at("round_max_abs_error_to_queue_range").at("calibrated").get<double>(),
                                     band["lone_max_abs"].get<double>());
  else if (round_gap.empty())
    round_gap = "the run's lone transfers are not covered (" + band.value("lone_unknown", std::string()) + ")";
  if (!round_gap.empty()) band["round_unknown"] = round_gap;
  return band;
}

// A band as printed: rounded up to a whole percent and never below 1% (a measured error is never
// exactly nothing; "within 0%" was a table read at its own points).
std::string within(double fraction) {
  return std::to_string(static_cast<int>(std::max(1.0, std::ceil(100 * fraction - 1e-9)))) + "%";
}

}  // namespace

nlohmann::json fidelity_json(const FidelityInput& in) {
  nlohmann::json network;
  network["model"] = in.tcp_model ? "tcp" : in.network_model;
  network["simgrid_model"] = in.network_model;
  if (in.network_model == "ns-3") {
    network["calibration"] = nullptr;
    network["expected_transfer_error"] = nullptr;
    network["basis"] = "SimGrid's own ns-3 binding: packet-level, one connection per message";
  } else if (in.calibration) {
    network["calibration"] = {{"file", in.calibration_file},
                              {"platform", in.calibration->platform},
                              {"route_classes", in.calibration->classes.size()}};
    network["expected_transfer_error"] = calibrated_band(in);
    network["basis"] =
        "the calibration's own measurements, where they cover the run: the largest error of lone transfers at every "
        "size measured, and of concurrent rounds outside TCP's range across router queues (ns-3, Linux's TCP)";
  } else if (in.tcp_model) {
    network["calibration"] = nullptr;
    network["expected_transfer_error"] = {{"message_bytes", in.message_bytes}, {"lone", nullptr}};
    network["basis"] =
        "the slow-start TCP model at Linux's parameters, nothing fitted to this platform: no measured band here "
        "(edgetrain calibrate measures one; results/fidelity gives its error on the shipped and held-out platforms)";
  } else {
    network["calibration"] = nullptr;
    network["expected_transfer_error"] = {{"message_bytes", in.message_bytes}, {"lone", lone_transfer_band(in)}};
    network["basis"] =
        "an estimate, not a measured band: CM02 has no slow start, and a lone transfer of the dense message on each "
        "device's routes is set against the slow-start TCP model; contention adds to it (edgetrain calibrate "
        "measures a band, edgetrain crosscheck a run)";
  }
  return {{"network", network}, {"compute", compute_fidelity(in)}};
}

std::string fidelity_text(const nlohmann::json& f) {
  const nlohmann::json& n = f.at("network");
  std::string net = "fidelity: transfers " + n.at("model").get<std::string>();
  const nlohmann::json& e = n.at("expected_transfer_error");
  if (!n.at("calibration").is_null()) {
    net += " (the slow-start model), calibrated (" + n["calibration"]["file"].get<std::string>() + "): ";
    net += e.value("lone_max_abs", nlohmann::json()).is_number()
               ? "alone within " + within(e["lone_max_abs"]) + " of ns-3"
               : "alone error unknown (" + e.value("lone_unknown", std::string("no coverage")) + ")";
    net += e.value("round_max_abs", nlohmann::json()).is_number()
               ? ", rounds within " + within(e["round_max_abs"]) + " of TCP's range across queues"
               : ", rounds unknown (" + e.value("round_unknown", std::string("no coverage")) + ")";
  } else if (n.at("model") == "tcp") {
    net += " (the slow-start model at Linux's parameters), uncalibrated: error band unknown (edgetrain calibrate "
           "measures one for this platform)";
  } else if (!e.is_null() && !e.at("lone").is_null()) {
    net += ", uncalibrated: a lone message " + util::signed_percent(e["lone"]["min"], 0) + " to " + util::signed_percent(e["lone"]["max"], 0) +
           " against slow-start TCP (an estimate; edgetrain calibrate measures a band)";
  }
  const nlohmann::json& c = f.at("compute");
  std::string step = "fidelity: steps " + c.at("model").get<std::string>();
  if (!c.at("profile").is_null()) step += " (" + c["profile"].get<std::string>() + ")";
  step += c.at("expected_step_error").is_null() ? ", error band unknown: " + c.at("basis").get<std::string>()
                                                 : ", within " + util::signed_percent(c["expected_step_error"], 0).substr(1) +
                                                       " of published steps";
  return net + "\n" + step + "\n";
}

}  // namespace edgetrain::sim
