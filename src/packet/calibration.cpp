#include "packet/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "input/json_text.hpp"
#include "util/read_input.hpp"

namespace edgetrain::packet {

namespace {

constexpr const char* kFormat = "edgetrain calibration 1";
// A calibration holds a few hundred points: far below this.
constexpr util::InputRule kCalibrationInput{"the calibration file", 64 * util::kMiB, true, ""};

double ratio_at(const RouteClass& c, double bytes) {
  if (c.sizes.empty()) return 1;
  if (bytes <= c.sizes.front()) return c.ratios.front();
  if (bytes >= c.sizes.back()) return c.ratios.back();
  const auto hi = static_cast<size_t>(std::upper_bound(c.sizes.begin(), c.sizes.end(), bytes) - c.sizes.begin());
  const size_t lo = hi - 1;
  const double f = std::log(bytes / c.sizes[lo]) / std::log(c.sizes[hi] / c.sizes[lo]);
  return c.ratios[lo] + f * (c.ratios[hi] - c.ratios[lo]);
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
  for (const char* key : {"single_fitted_max_abs_error", "single_held_out_max_abs_error", "round_max_abs_error"}) {
    const nlohmann::json* pair = summary.contains(key) ? &summary.at(key) : nullptr;
    if (!pair || !pair->is_object() || !finite(*pair, "flow") || !finite(*pair, "calibrated"))
      throw CalibrationError(what + "summary." + key + " with numbers \"flow\" and \"calibrated\"");
  }
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

double Calibration::target_s(double bytes, const RouteShape& route) const {
  if (index_.empty())
    for (size_t i = 0; i < classes.size(); ++i) index_.emplace(classes[i].links, i);
  const auto [one_way, bottleneck] = path_of(route);
  const double model_s = model.lone_transfer_s(bytes, one_way, bottleneck);
  const auto it = index_.find(route);
  return it == index_.end() ? model_s : model_s * ratio_at(classes[it->second], bytes);
}

std::string calibration_text(const Calibration& c) {
  nlohmann::json j;
  j["format"] = kFormat;
  j["platform"] = c.platform;
  j["fingerprint"] = c.fingerprint;
  j["model"] = {{"efficiency", c.model.efficiency},
                {"growth", c.model.growth},
                {"initial_window_bytes", c.model.initial_window_bytes},
                {"receive_window_bytes", c.model.receive_window_bytes}};
  j["classes"] = nlohmann::json::array();
  for (const RouteClass& rc : c.classes) {
    nlohmann::json links = nlohmann::json::array();
    for (const auto& [bandwidth, latency] : rc.links) links.push_back({bandwidth, latency});
    j["classes"].push_back({{"example", rc.example}, {"links", links}, {"sizes", rc.sizes}, {"ratios", rc.ratios}});
  }
  j["report"] = c.report;
  return j.dump(1) + "\n";
}

Calibration read_calibration(const std::filesystem::path& file) {
  const std::string where = file.string() + ": ";
  const std::string text = util::read_input_as<CalibrationError>(file, kCalibrationInput);
  // Nesting and duplicate keys refused before nlohmann parses (a 100,000-deep report crashed it).
  const nlohmann::json j = input::parse_json_file_as<CalibrationError>(text, file.string());
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
    const auto& m = j.at("model");
    c.model.efficiency = number(m.at("efficiency"), "model.efficiency", 0.01, 1);
    c.model.growth = number(m.at("growth"), "model.growth", 1.01, 4);
    c.model.initial_window_bytes = number(m.at("initial_window_bytes"), "model.initial_window_bytes", 1, 1e9);
    c.model.receive_window_bytes = number(m.at("receive_window_bytes"), "model.receive_window_bytes", 1, 1e12);
    for (const auto& rc : j.at("classes")) {
      RouteClass r;
      r.example = rc.value("example", std::string());
      for (const auto& l : rc.at("links"))
        r.links.push_back({number(l.at(0), "a link's bandwidth", 1e-9, 1e15), number(l.at(1), "a link's latency", 0, 1e6)});
      for (const auto& s : rc.at("sizes")) r.sizes.push_back(number(s, "a size", 1, 1e15));
      for (const auto& v : rc.at("ratios")) r.ratios.push_back(number(v, "a ratio", 1e-3, 1e3));
      if (r.links.empty() || r.sizes.size() != r.ratios.size() || !std::is_sorted(r.sizes.begin(), r.sizes.end()))
        throw CalibrationError(where + "route class \"" + r.example +
                               "\" needs links and as many ratios as sizes, sizes ascending");
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
