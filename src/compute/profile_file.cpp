// See profile_file.hpp.
#include "compute/profile_file.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "input/json_text.hpp"
#include "util/format.hpp"
#include "util/printable.hpp"
#include "util/read_input.hpp"

namespace edgetrain::compute {

namespace {

// A profile holds a few numbers and the points it was fitted to: far below this.
constexpr util::InputRule kProfileInput{"the compute profile", 16 * util::kMiB, true, ""};

// The ranges of a profile's values: the platform's speed bounds for the compute ceiling (a step at
// 1e-300 flop/s could never end), memory bandwidths from 1 kB/s to 1 PB/s, at most a second of fixed
// cost per layer (measured ones are microseconds), and a kind's share of the ceilings from 1e-6 to 100.
constexpr double kMinFlopsS = 1e6, kMaxFlopsS = 1e15;
constexpr double kMinBytesS = 1e3, kMaxBytesS = 1e15;
constexpr double kMaxLayerOverheadS = 1;
constexpr double kMinEfficiency = 1e-6, kMaxEfficiency = 100;

std::string range_text(double lo, double hi) { return util::format_number(lo) + " to " + util::format_number(hi); }

}  // namespace

Profile read_profile_file(const std::string& path) {
  const std::string text = util::read_input_as<ProfileFileError>(path, kProfileInput);
  const nlohmann::json j = input::parse_json_file_as<ProfileFileError>(text, path);
  if (!j.is_object()) throw ProfileFileError(path + ": a profile is a JSON object");
  auto within = [&](const char* key, double lo, double hi) {
    if (!j.contains(key) || !j[key].is_number()) throw ProfileFileError(path + ": \"" + key + "\" must be a number");
    const double v = j[key].get<double>();
    if (!std::isfinite(v) || v < lo || v > hi)
      throw ProfileFileError(path + ": \"" + key + "\" must be from " + range_text(lo, hi) + ", not " +
                             util::format_number(v));
    return v;
  };
  Profile p;
  p.flops_s = within("flops_s", kMinFlopsS, kMaxFlopsS);
  p.bytes_s = within("bytes_s", kMinBytesS, kMaxBytesS);
  p.layer_overhead_s = within("layer_overhead_s", 0, kMaxLayerOverheadS);
  p.name = j.contains("name") && j["name"].is_string() ? j["name"].get<std::string>() : path;
  p.about = j.contains("about") && j["about"].is_string() ? j["about"].get<std::string>() : "";
  if (j.contains("efficiency")) {
    if (!j["efficiency"].is_object()) throw ProfileFileError(path + ": \"efficiency\" must be an object");
    for (const auto& [kind, value] : j["efficiency"].items()) {
      size_t k = 0;
      while (k < kKinds && kKindNames[k] != kind) ++k;
      if (k == kKinds)
        throw ProfileFileError(path + ": efficiency of an unknown layer kind \"" + util::printable(kind) + "\"");
      if (!value.is_number() || !(value.get<double>() >= kMinEfficiency) || !(value.get<double>() <= kMaxEfficiency))
        throw ProfileFileError(path + ": efficiency." + kind + " must be a number from " +
                               range_text(kMinEfficiency, kMaxEfficiency));
      p.efficiency[k] = value.get<double>();
    }
  }
  return p;
}

std::string profile_json(const Profile& p, const std::string& points_json) {
  nlohmann::ordered_json j;
  j["name"] = p.name;
  j["about"] = p.about;
  j["flops_s"] = p.flops_s;
  j["bytes_s"] = p.bytes_s;
  j["layer_overhead_s"] = p.layer_overhead_s;
  for (size_t k = 0; k < kKinds; ++k) j["efficiency"][std::string(kKindNames[k])] = p.efficiency[k];
  j["points"] = nlohmann::ordered_json::parse(points_json);
  return j.dump(2) + "\n";
}

}  // namespace edgetrain::compute
