// See profile_file.hpp.
#include "compute/profile_file.hpp"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace edgetrain::compute {

Profile read_profile_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ProfileFileError(path + ": cannot read the profile file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw ProfileFileError(path + ": not a JSON profile");
  }
  auto positive = [&](const char* key, bool zero_allowed) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number())
      throw ProfileFileError(path + ": \"" + key + "\" must be a number");
    const double v = j[key].get<double>();
    if (!std::isfinite(v) || v < 0 || (!zero_allowed && v == 0))
      throw ProfileFileError(path + ": \"" + key + "\" must be " + (zero_allowed ? ">= 0" : "> 0"));
    return v;
  };
  Profile p;
  p.flops_s = positive("flops_s", false);
  p.bytes_s = positive("bytes_s", false);
  p.layer_overhead_s = positive("layer_overhead_s", true);
  p.name = j.contains("name") && j["name"].is_string() ? j["name"].get<std::string>() : path;
  p.about = j.contains("about") && j["about"].is_string() ? j["about"].get<std::string>() : "";
  if (j.contains("efficiency")) {
    if (!j["efficiency"].is_object()) throw ProfileFileError(path + ": \"efficiency\" must be an object");
    for (const auto& [kind, value] : j["efficiency"].items()) {
      size_t k = 0;
      while (k < kKinds && kKindNames[k] != kind) ++k;
      if (k == kKinds) throw ProfileFileError(path + ": efficiency of an unknown layer kind \"" + kind + "\"");
      if (!value.is_number() || !(value.get<double>() > 0) || !std::isfinite(value.get<double>()))
        throw ProfileFileError(path + ": efficiency." + kind + " must be a number > 0");
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
