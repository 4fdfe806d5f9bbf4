#include "packet/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "input/json_text.hpp"
#include "util/read_input.hpp"

namespace edgetrain::packet {

namespace {

constexpr const char* kFormat = "edgetrain calibration 2";
constexpr const char* kOldFormat = "edgetrain calibration 1";
// A calibration holds a few hundred points: far below this.
constexpr util::InputRule kCalibrationInput{"the calibration file", 64 * util::kMiB, true, ""};

nlohmann::json model_json(const TcpModel& m) {
  return {{"rate_factor", m.rate_factor},
          {"mss_bytes", m.mss_bytes},
          {"header_bytes", m.header_bytes},
          {"initial_window_segments", m.initial_window_segments},
          {"receive_window_bytes", m.receive_window_bytes},
          {"delayed_ack_s", m.delayed_ack_s}};
}

// What runs read of a calibration's report (its fidelity band, calibrate's summary): the summary's
// three largest errors, flow and calibrated, and the concurrent rounds as a list.
void check_report(const nlohmann::json& report, const std::string& where) {
  const std::string what = where + "\"report\" must hold what calibrate measured: ";
  if (!report.is_object()) throw CalibrationError(what + "an object");
  if (!report.contains("concurrent") || !report.at("concurrent").is_array())
    throw CalibrationError(what + "\"concurrent\", a list");
  if (!report.contains("summary") || !report.at("summary").is_object())
    throw CalibrationError(what + "\"summary\", an object");
  const auto finite = [](const nlohmann::json& pair, const char* name) {
    return pair.contains(name) && pair.at(name).is_number() && std::isfinite(pair.at(name).get<double>());
  };
  const nlohmann::json& summary = report.at("summary");
  for (const char* key : {"single_fitted_max_abs_error", "single_held_out_max_abs_error", "round_max_abs_error",
                          "round_max_abs_error_to_queue_range"}) {
    const nlohmann::json* pair = summary.contains(key) ? &summary.at(key) : nullptr;
    if (!pair || !pair->is_object() || !finite(*pair, "flow") || !finite(*pair, "calibrated"))
      throw CalibrationError(what + "summary." + key + " with numbers \"flow\" and \"calibrated\"");
  }
  // What the measurements cover, which a run's band is read against (sim/core/fidelity.cpp).
  const auto span = [&](const nlohmann::json& v) {
    return v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number() && std::isfinite(v[0].get<double>()) &&
           std::isfinite(v[1].get<double>()) && v[0].get<double>() <= v[1].get<double>();
  };
  const nlohmann::json* cover = summary.contains("coverage") ? &summary.at("coverage") : nullptr;
  if (!cover || !cover->is_object() || !cover->contains("lone_bytes") || !span(cover->at("lone_bytes")) ||
      !cover->contains("round_flows") || !cover->at("round_flows").is_number_unsigned() ||
      !cover->contains("round_bytes") || !(cover->at("round_bytes").is_null() || span(cover->at("round_bytes"))))
    throw CalibrationError(what + "summary.coverage with \"lone_bytes\" [from, to], \"round_flows\" (a count) and "
                                  "\"round_bytes\" [from, to] or null");
}

}  // namespace

std::pair<double, double> Calibration::path_of(const RouteShape& route) {
  double one_way = 0, bottleneck = INFINITY;
  for (const auto& [bandwidth, latency] : route) {
    one_way += latency;
    bottleneck = std::min(bottleneck, bandwidth);
  }
  return {one_way, bottleneck};
}

const TcpModel& Calibration::model_of(const RouteShape& route) const {
  if (index_.empty())
    for (size_t i = 0; i < classes.size(); ++i) index_.emplace(classes[i].links, i);
  const auto it = index_.find(route);
  return it == index_.end() ? model : classes[it->second].model;
}

double Calibration::target_s(double bytes, const RouteShape& route) const {
  const auto [one_way, bottleneck] = path_of(route);
  return model_of(route).lone_transfer_s(bytes, one_way, bottleneck);
}

std::string calibration_text(const Calibration& c) {
  nlohmann::json j;
  j["format"] = kFormat;
  j["platform"] = c.platform;
  j["fingerprint"] = c.fingerprint;
  j["model"] = model_json(c.model);
  j["classes"] = nlohmann::json::array();
  for (const RouteClass& rc : c.classes) {
    nlohmann::json links = nlohmann::json::array();
    for (const auto& [bandwidth, latency] : rc.links) links.push_back({bandwidth, latency});
    j["classes"].push_back({{"example", rc.example}, {"links", links}, {"model", model_json(rc.model)}});
  }
  j["report"] = c.report;
  return j.dump(1) + "\n";
}

Calibration read_calibration(const std::filesystem::path& file) {
  const std::string where = file.string() + ": ";
  const std::string text = util::read_input_as<CalibrationError>(file, kCalibrationInput);
  // Nesting and duplicate keys refused before nlohmann parses (a 100,000-deep report crashed it).
  const nlohmann::json j = input::parse_json_file_as<CalibrationError>(text, file.string());
  if (j.is_object() && j.value("format", std::string()) == kOldFormat)
    throw CalibrationError(where + "made by an older edgetrain (ratio tables between sampled sizes, which did not hold "
                                   "between them): run edgetrain calibrate again");
  if (!j.is_object() || j.value("format", std::string()) != kFormat)
    throw CalibrationError(where + "not an edgetrain calibration (no \"format\": \"" + kFormat + "\")");
  const auto number = [&](const nlohmann::json& v, const std::string& what, double low, double high) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < low || v.get<double>() > high)
      throw CalibrationError(where + what + " must be a number from " + std::to_string(low) + " to " +
                             std::to_string(high));
    return v.get<double>();
  };
  Calibration c;
  try {
    c.platform = j.at("platform").get<std::string>();
    c.fingerprint = j.at("fingerprint").get<std::string>();
    const auto read_model = [&](const nlohmann::json& m, const std::string& what) {
      TcpModel model;
      // Bounds that keep the emulation's segment count and events finite and its time meaningful.
      model.rate_factor = number(m.at("rate_factor"), what + ".rate_factor", 0.01, 1);
      model.mss_bytes = number(m.at("mss_bytes"), what + ".mss_bytes", 500, 65495);
      model.header_bytes = number(m.at("header_bytes"), what + ".header_bytes", 0, 1000);
      model.initial_window_segments = number(m.at("initial_window_segments"), what + ".initial_window_segments", 1, 1000);
      model.receive_window_bytes = number(m.at("receive_window_bytes"), what + ".receive_window_bytes", 65535, 1e9);
      model.delayed_ack_s = number(m.at("delayed_ack_s"), what + ".delayed_ack_s", 0, 1);
      return model;
    };
    c.model = read_model(j.at("model"), "model");
    for (const auto& rc : j.at("classes")) {
      RouteClass r;
      r.example = rc.value("example", std::string());
      for (const auto& l : rc.at("links"))
        r.links.push_back({number(l.at(0), "a link's bandwidth", 1e-9, 1e15), number(l.at(1), "a link's latency", 0, 1e6)});
      if (r.links.empty()) throw CalibrationError(where + "route class \"" + r.example + "\" needs links");
      r.model = read_model(rc.at("model"), "route class \"" + r.example + "\": model");
      c.classes.push_back(std::move(r));
    }
    c.report = j.at("report");
    check_report(c.report, where);
  } catch (const nlohmann::json::exception& e) {
    throw CalibrationError(where + "malformed (" + std::string(e.what()).substr(std::string(e.what()).find(']') + 2) +
                           ")");
  }
  return c;
}

}  // namespace edgetrain::packet
