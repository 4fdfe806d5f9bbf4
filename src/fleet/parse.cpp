// See parse.hpp. Each object is read through `Object`, which knows its JSON path and its allowed
// keys, so an unknown key is reported once, with a suggestion, before any value is read.
#include "fleet/parse.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "fleet/names.hpp"
#include "fleet/split.hpp"
#include "input/error.hpp"
#include "input/json_text.hpp"
#include "input/text.hpp"
#include "input/trace_files.hpp"
#include "input/units.hpp"
#include "learn/catalogue.hpp"
#include "platform/bounds.hpp"
#include "platform/wattage.hpp"
#include "util/limits.hpp"
#include "util/printable.hpp"
#include "util/read_input.hpp"

namespace edgetrain::fleet {
namespace {

using nlohmann::json;
using input::Unit;
namespace text = input::text;

// Host properties edgetrain sets itself: a class may not set them.
const std::vector<std::string> kReservedProperties = {"class", "site", "link_class", "role", kAvailabilityProperty};
// Properties edgetrain's platform check reads, which a generated fleet cannot honour.
const std::vector<std::string> kRefusedProperties = {"wifi_rate_level"};

std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

[[noreturn]] void fail(const std::string& path, const std::string& why) { throw FleetError(path + ": " + why); }

std::string join_path(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

// Class, link-class and site names become host and link names in the XML: keep them plain.
void check_name(const std::string& path, const std::string& name) {
  const bool plain = !name.empty() && name.size() <= 64 && std::isalnum(static_cast<unsigned char>(name[0])) &&
                     std::all_of(name.begin(), name.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
                     });
  if (!plain) {
    fail(path, "a name must be 1 to 64 letters, digits, '-', '_' or '.', starting with a letter or digit, got " +
                   in_quotes(name));
  }
}

class Object {
 public:
  // `value` must be an object whose keys are all in `keys` ("about" is always allowed).
  Object(const json& value, std::string path, std::vector<std::string> keys,
         const std::map<std::string, std::string>& hints = {})
      : v_(value), path_(std::move(path)) {
    if (!v_.is_object()) fail(shown(), "expected an object, got " + text::show(v_));
    keys.push_back("about");
    for (const auto& [key, item] : v_.items()) {
      if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
      std::string msg = "unknown key " + in_quotes(key);
      if (const auto near = text::closest(key, keys)) {
        msg += " (did you mean " + in_quotes(*near) + "?)";
      } else {
        msg += " (expected one of: " + text::join(keys, ", ") + ")";
      }
      const auto hint = hints.find(key);
      fail(join_path(path_, key), msg + (hint == hints.end() ? "" : hint->second));
    }
    if (v_.contains("about") && !v_["about"].is_string()) {
      fail(join_path(path_, "about"), "expected a string (a comment), got " + text::show(v_["about"]));
    }
  }

  std::string shown() const { return path_.empty() ? "the description" : path_; }
  std::string at(const std::string& key) const { return join_path(path_, key); }
  bool has(const std::string& key) const { return v_.contains(key); }
  const json& operator[](const std::string& key) const { return v_.at(key); }

  const json& required(const std::string& key) const {
    if (!has(key)) fail(at(key), "required");
    return v_.at(key);
  }

  double quantity(const std::string& key, Unit unit, bool zero_allowed) const {
    return check_quantity(required(key), unit, at(key), zero_allowed);
  }

  static double check_quantity(const json& value, Unit unit, const std::string& path, bool zero_allowed) {
    double v = 0;
    try {
      v = input::parse_quantity(value, unit, path);
    } catch (const input::Error& e) {
      throw FleetError(e.what());
    }
    if (!std::isfinite(v) || v < 0 || (v == 0 && !zero_allowed)) {
      fail(path, std::string(zero_allowed ? "must be >= 0" : "must be > 0") + ", got " + text::show(value));
    }
    // Speeds and bandwidths within the platform's bounds (platform/bounds.hpp), as the platform file
    // and the what-if keys: a speed of "1f" is refused, never rounded up to the fleet's 1 Mf step.
    const bool speed = unit == Unit::Flops, bandwidth = unit == Unit::BitsPerSecond;
    if (speed || bandwidth) {
      const double low = zero_allowed ? 0 : speed ? platform::kMinSpeedFlops : platform::kMinBandwidthBps;
      const double high = speed ? platform::kMaxSpeedFlops : platform::kMaxBandwidthBps;
      const char* symbol = speed ? "f" : "bps";
      if (v < low) fail(path, "must be at least " + text::format_number(low) + symbol + ", got " + text::show(value));
      if (v > high) fail(path, "must be at most " + text::format_number(high) + symbol + ", got " + text::show(value));
    }
    return v;
  }

  // A link latency: >= 0 and at most the longest simulated time a scenario may name.
  double latency(const std::string& key) const {
    const double v = quantity(key, Unit::Seconds, true);
    if (v > util::kMaxTimeS) {
      fail(at(key), "must be at most " + text::format_number(util::kMaxTimeS) + " s, got " + text::show(required(key)));
    }
    return v;
  }

  int64_t whole(const std::string& key, int64_t min, int64_t max) const {
    return check_whole(required(key), at(key), min, max);
  }

  static int64_t check_whole(const json& value, const std::string& path, int64_t min, int64_t max) {
    const bool integral = value.is_number_integer() ||
                          (value.is_number_float() && std::floor(value.get<double>()) == value.get<double>() &&
                           std::abs(value.get<double>()) < 9e15);
    if (!integral) fail(path, "expected a whole number, got " + text::show(value));
    const double d = value.get<double>();
    if (d < static_cast<double>(min) || d > static_cast<double>(max)) {
      fail(path, "must be from " + std::to_string(min) + " to " + std::to_string(max) + ", got " + text::show(value));
    }
    return value.is_number_unsigned() ? static_cast<int64_t>(value.get<uint64_t>()) : value.get<int64_t>();
  }

  std::string string(const std::string& key) const {
    const json& v = required(key);
    if (!v.is_string()) fail(at(key), "expected a string, got " + text::show(v));
    return v.get<std::string>();
  }

 private:
  const json& v_;
  std::string path_;
};

// A share: a number in (0, 1].
double share_value(const json& value, const std::string& path) {
  if (!value.is_number()) fail(path, "expected a share (a number from 0 to 1), got " + text::show(value));
  const double s = value.get<double>();
  if (!(s > 0 && s <= 1)) fail(path, "a share must be > 0 and <= 1, got " + text::show(value));
  return s;
}

void check_sum(const std::string& path, double sum) {
  if (std::abs(sum - 1) > 1e-6) fail(path, "the shares must sum to 1, they sum to " + text::format_number(sum));
}

// {"name": share, ...} over `known` names (or one name as a string, meaning share 1).
std::vector<std::pair<std::string, double>> shares_of(const json& value, const std::string& path,
                                                      const std::vector<std::string>& known, const std::string& what) {
  auto check_known = [&](const std::string& name, const std::string& at) {
    if (std::find(known.begin(), known.end(), name) != known.end()) return;
    std::string msg = "unknown " + what + " " + in_quotes(name);
    if (const auto near = text::closest(name, known)) msg += " (did you mean " + in_quotes(*near) + "?)";
    fail(at, msg + " (known: " + text::join(known, ", ") + ")");
  };
  if (value.is_string()) {
    check_known(value.get<std::string>(), path);
    return {{value.get<std::string>(), 1.0}};
  }
  if (!value.is_object() || value.empty()) {
    fail(path, "expected a " + what + " name or an object of " + what + " -> share, got " + text::show(value));
  }
  std::vector<std::pair<std::string, double>> out;
  double sum = 0;
  for (const auto& [name, share] : value.items()) {
    check_known(name, join_path(path, name));
    out.emplace_back(name, share_value(share, join_path(path, name)));
    sum += out.back().second;
  }
  check_sum(path, sum);
  return out;
}

Properties properties_of(const json& value, const std::string& path) {
  if (!value.is_object()) fail(path, "expected an object of property -> value, got " + text::show(value));
  Properties out;
  for (const auto& [key, v] : value.items()) {
    const std::string at = join_path(path, key);
    if (key.empty()) fail(path, "a property name must not be empty");
    if (std::find(kReservedProperties.begin(), kReservedProperties.end(), key) != kReservedProperties.end()) {
      fail(at, "edgetrain sets this property itself (class, site, link_class, role)");
    }
    if (std::find(kRefusedProperties.begin(), kRefusedProperties.end(), key) != kRefusedProperties.end()) {
      fail(at, "a fleet has no Wi-Fi zone: this property is only for hosts of a routing=\"Wifi\" zone");
    }
    if (v.is_string()) {
      out[key] = v.get<std::string>();
    } else if (v.is_number()) {
      out[key] = text::format_number(v.get<double>());
    } else {
      fail(at, "expected a string or a number, got " + text::show(v));
    }
  }
  // A fleet's hosts have one pstate (one speed).
  if (const std::string problem = platform::host_wattage_problem(out, 1); !problem.empty()) fail(path, problem);
  return out;
}

// A per-device value: a plain value (constant) or {"dist": ..., ...}. `whole`: cores.
Distribution distribution(const json& value, const std::string& path, bool whole) {
  auto one = [&](const json& v, const std::string& at) {
    if (whole) return static_cast<double>(Object::check_whole(v, at, 1, kMaxCores));
    return Object::check_quantity(v, Unit::Flops, at, false);
  };
  Distribution d;
  if (!value.is_object()) {
    d.value = one(value, path);
    return d;
  }
  const std::vector<std::string> kinds = {"constant", "uniform", "normal", "list"};
  const Object o(value, path, {"dist", "value", "min", "max", "mean", "stddev", "values", "weights"});
  const std::string kind = o.string("dist");
  auto only = [&](const std::vector<std::string>& keys) {
    for (const auto& [key, item] : value.items()) {
      if (key != "dist" && key != "about" && std::find(keys.begin(), keys.end(), key) == keys.end()) {
        fail(o.at(key), "not a key of a " + kind + " distribution (it takes " + text::join(keys, ", ") + ")");
      }
    }
  };
  if (kind == "constant") {
    only({"value"});
    d.value = one(o.required("value"), o.at("value"));
  } else if (kind == "uniform" || kind == "normal") {
    d.kind = kind == "uniform" ? Distribution::Kind::Uniform : Distribution::Kind::Normal;
    if (kind == "uniform") {
      only({"min", "max"});
    } else {
      only({"mean", "stddev", "min", "max"});
      d.mean = one(o.required("mean"), o.at("mean"));
      d.stddev = whole ? Object::check_quantity(o.required("stddev"), Unit::Count, o.at("stddev"), true)
                       : Object::check_quantity(o.required("stddev"), Unit::Flops, o.at("stddev"), true);
    }
    d.min = one(o.required("min"), o.at("min"));
    d.max = one(o.required("max"), o.at("max"));
    if (d.min > d.max) fail(o.at("max"), "must be >= min, got " + text::show(o["max"]));
    if (kind == "normal" && (d.mean < d.min || d.mean > d.max)) {
      fail(o.at("mean"), "must lie between min and max, got " + text::show(o["mean"]));
    }
  } else if (kind == "list") {
    only({"values", "weights"});
    d.kind = Distribution::Kind::List;
    const json& values = o.required("values");
    if (!values.is_array() || values.empty()) {
      fail(o.at("values"), "expected a non-empty list of values, got " + text::show(values));
    }
    for (size_t i = 0; i < values.size(); ++i)
      d.values.push_back(one(values[i], o.at("values") + "." + std::to_string(i)));
    if (o.has("weights")) {
      const json& w = o["weights"];
      if (!w.is_array() || w.size() != values.size()) {
        fail(o.at("weights"),
             "expected a list of " + std::to_string(values.size()) + " weights (one per value), got " + text::show(w));
      }
      double sum = 0;
      for (size_t i = 0; i < w.size(); ++i) {
        if (!w[i].is_number() || !(w[i].get<double>() >= 0) || !std::isfinite(w[i].get<double>())) {
          fail(o.at("weights") + "." + std::to_string(i), "a weight must be a number >= 0, got " + text::show(w[i]));
        }
        d.weights.push_back(w[i].get<double>());
        sum += d.weights.back();
      }
      if (!(sum > 0)) fail(o.at("weights"), "at least one weight must be > 0");
      // Each weight is finite, their sum need not be (two of 1e308): every draw would divide by infinity.
      if (!std::isfinite(sum)) fail(o.at("weights"), "the weights sum to more than a double holds: scale them down");
    } else {
      d.weights.assign(d.values.size(), 1.0);
    }
  } else {
    std::string msg = "unknown distribution " + in_quotes(kind);
    if (const auto near = text::closest(kind, kinds)) msg += " (did you mean " + in_quotes(*near) + "?)";
    fail(o.at("dist"), msg + " (expected " + text::or_list(kinds) + ")");
  }
  return d;
}

DuplexLink duplex_link(const json& value, const std::string& path) {
  const Object o(value, path, {"up", "down", "latency"});
  return DuplexLink{o.quantity("up", Unit::BitsPerSecond, false), o.quantity("down", Unit::BitsPerSecond, false),
                    o.latency("latency")};
}

Backbone backbone(const json& value, const std::string& path) {
  const Object o(value, path, {"bandwidth", "latency"});
  return Backbone{o.quantity("bandwidth", Unit::BitsPerSecond, false), o.latency("latency")};
}

HostSpec host_spec(const Object& o) {
  HostSpec h;
  h.speed_flops = o.quantity("speed", Unit::Flops, false);
  if (o.has("cores")) h.cores = o.whole("cores", 1, kMaxCores);
  if (o.has("properties")) h.properties = properties_of(o["properties"], o.at("properties"));
  return h;
}

LinkClass link_class(const std::string& name, const json& value, const std::string& path) {
  check_name(path, name);
  const Object o(value, path, {"up", "down", "latency", "wattage_range"});
  LinkClass c{name,
              o.quantity("up", Unit::BitsPerSecond, false),
              o.quantity("down", Unit::BitsPerSecond, false),
              o.latency("latency"),
              {},
              {}};
  if (o.has("wattage_range")) {
    // SimGrid's link energy property on each direction's link: the radio's (or port's) watts.
    const Object w(o["wattage_range"], o.at("wattage_range"), {"up", "down"});
    for (const auto& [key, out] : {std::pair{"up", &c.up_wattage_range}, std::pair{"down", &c.down_wattage_range}}) {
      if (!w.has(key)) continue;
      if (!w[key].is_string()) fail(w.at(key), "expected a string \"idle:busy\" (watts), got " + text::show(w[key]));
      *out = w[key].get<std::string>();
      const std::string problem = platform::link_wattage_problem({{platform::kLinkWattage, *out}}, false);
      if (!problem.empty()) fail(w.at(key), problem);
    }
  }
  return c;
}

SiteGroup site_group(const std::string& name, const json& value, const std::string& path) {
  check_name(path, name);
  const Object o(value, path, {"count", "uplink", "lan", "aggregator"});
  SiteGroup g;
  g.name = name;
  if (o.has("count")) g.count = o.whole("count", 1, kMaxSites);
  if (o.has("uplink")) g.uplink = duplex_link(o["uplink"], o.at("uplink"));
  if (o.has("lan")) g.lan = backbone(o["lan"], o.at("lan"));
  if (o.has("aggregator")) {
    const Object a(o["aggregator"], o.at("aggregator"), {"speed", "cores", "link", "properties"});
    SiteAggregator agg;
    agg.host = host_spec(a);
    agg.link = a.has("link") ? duplex_link(a["link"], a.at("link")) : DuplexLink{1e9, 1e9, 1e-4};
    g.aggregator = agg;
  }
  return g;
}

struct ClassCount {
  std::optional<int64_t> count;
  std::optional<double> share;
};

// Counts from "count" and "share" keys: shares split what the counts leave of "devices".
void resolve_counts(FleetSpec& spec, const std::vector<ClassCount>& given, const Object& top,
                    const std::string& classes_path) {
  int64_t counted = 0;
  double share_sum = 0;
  std::vector<double> shares;
  std::vector<size_t> shared;
  for (size_t i = 0; i < given.size(); ++i) {
    if (given[i].count) {
      counted += *given[i].count;
      spec.classes[i].count = *given[i].count;
    } else {
      share_sum += *given[i].share;
      shares.push_back(*given[i].share);
      shared.push_back(i);
    }
  }
  if (counted > kMaxDevices) fail(classes_path, "more than " + std::to_string(kMaxDevices) + " devices in all");
  if (shared.empty()) {
    if (top.has("devices") && top.whole("devices", 1, kMaxDevices) != counted) {
      fail(top.at("devices"), "is " + text::show(top["devices"]) + " but the classes' counts sum to " +
                                  std::to_string(counted) + " (give shares, or drop \"devices\")");
    }
    spec.devices = counted;
  } else {
    if (!top.has("devices"))
      fail(top.at("devices"),
           "required: classes " + in_quotes(spec.classes[shared[0]].name) + " and others give a share of it");
    spec.devices = top.whole("devices", 1, kMaxDevices);
    if (spec.devices < counted) {
      fail(top.at("devices"), "is " + std::to_string(spec.devices) + " but the classes with a count already have " +
                                  std::to_string(counted));
    }
    check_sum(classes_path + " (the classes' \"share\" values)", share_sum);
    const std::vector<int64_t> split = exact_split(spec.devices - counted, shares);
    for (size_t k = 0; k < shared.size(); ++k) spec.classes[shared[k]].count = split[k];
  }
  if (spec.devices < 1) fail(classes_path, "the fleet has no device: give a class a count or share > 0");
}

// A class's trace file: a path relative to the description's folder.
std::filesystem::path trace_file(const Object& o, const std::string& key, const std::filesystem::path& base_dir) {
  const std::string name = o.string(key);
  if (name.empty()) fail(o.at(key), "expected a file name, got \"\"");
  const std::filesystem::path file(name);
  return file.is_absolute() || base_dir.empty() ? file : base_dir / file;
}

std::string trace_text(const Object& o, const std::string& key, const std::filesystem::path& file) {
  try {
    return util::read_input(file, util::kTraceInput);
  } catch (const util::ReadError& e) {
    fail(o.at(key), e.what());
  }
}

// The trace readers' errors (input::Error) as the fleet's.
template <typename F>
auto trace_checked(F&& f) {
  try {
    return f();
  } catch (const input::Error& e) {
    throw FleetError(e.what());
  }
}

void class_traces(const Object& o, const std::filesystem::path& base_dir, DeviceClass& c) {
  const auto file = trace_file(o, "capacity_trace", base_dir);
  c.capacity = std::make_shared<const input::CapacityTrace>(trace_checked([&] {
    return input::parse_capacity(trace_text(o, "capacity_trace", file), o.at("capacity_trace"), file.string());
  }));
  const std::string ref = o.has("trace_reference_model") ? o.string("trace_reference_model") : "mobilenet_v2";
  const learn::CatalogueModel* model = learn::find_model(ref);
  if (!model) {
    std::vector<std::string> names;
    for (std::string_view n : learn::catalogue_names()) names.emplace_back(n);
    fail(o.at("trace_reference_model"),
         "not a catalogue model: " + in_quotes(ref) + " (one of " + text::join(names, ", ") + ")");
  }
  c.reference_step_flops = model->step_flops_per_sample();
  for (size_t k = 0; k < c.capacity->rows.size(); ++k) {
    const double speed = c.reference_step_flops / (3.0 * c.capacity->rows[k].compute_ms_per_sample / 1e3);
    if (speed < platform::kMinSpeedFlops || speed > platform::kMaxSpeedFlops) {
      fail(o.at("capacity_trace"), file.string() + ":" + std::to_string(c.capacity->devices[k].line) +
                                       ": compute_ms_per_sample " +
                                       text::format_number(c.capacity->rows[k].compute_ms_per_sample) +
                                       " gives a speed outside [1e6, 1e15] flop/s for " + ref);
    }
  }
}

}  // namespace

FleetSpec parse_fleet(const json& description, const std::string& where, const std::filesystem::path& base_dir) {
  // "links", "hosts" and "file" are the spellings of a scenario's platform what-ifs, not fleet keys.
  const std::string what_if =
      " (a scenario's platform what-ifs spell platform.links.NAME... and platform.hosts.NAME...";
  const Object top(description, where, {"name", "seed", "devices", "classes", "link_classes", "sites", "wan", "cloud"},
                   {{"links", what_if + "; a fleet's access links are its link_classes)"},
                    {"hosts", what_if + "; a fleet's hosts come from its classes)"},
                    {"file", what_if + "; a fleet description is the platform itself)"}});
  FleetSpec spec;
  spec.name = top.has("name") ? top.string("name") : "fleet";
  if (top.has("seed")) {
    const json& s = top["seed"];
    if (!s.is_number_unsigned() && !(s.is_number_integer() && s.get<int64_t>() >= 0)) {
      fail(top.at("seed"), "must be a non-negative integer, got " + text::show(s));
    }
    spec.seed = s.get<uint64_t>();
  }

  const json& links = top.required("link_classes");
  if (!links.is_object() || links.empty()) fail(top.at("link_classes"), "expected a non-empty object of link classes");
  std::vector<std::string> link_names;
  for (const auto& [name, v] : links.items()) {
    spec.link_classes.push_back(link_class(name, v, join_path(top.at("link_classes"), name)));
    link_names.push_back(name);
  }

  if (top.has("sites")) {
    const json& sites = top["sites"];
    if (!sites.is_object() || sites.empty()) fail(top.at("sites"), "expected a non-empty object of sites");
    for (const auto& [name, v] : sites.items())
      spec.sites.push_back(site_group(name, v, join_path(top.at("sites"), name)));
  } else {
    spec.sites.push_back(SiteGroup{"edge", 1, std::nullopt, std::nullopt, std::nullopt});
  }
  int64_t site_count = 0;
  for (const SiteGroup& g : spec.sites) site_count += g.count;
  if (site_count > kMaxSites) fail(top.at("sites"), "more than " + std::to_string(kMaxSites) + " sites in all");
  std::vector<std::string> site_names;
  for (const SiteGroup& g : spec.sites) site_names.push_back(g.name);

  const json& classes = top.required("classes");
  if (!classes.is_object() || classes.empty()) fail(top.at("classes"), "expected a non-empty object of device classes");
  std::vector<ClassCount> counts;
  for (const auto& [name, v] : classes.items()) {
    const std::string path = join_path(top.at("classes"), name);
    check_name(path, name);
    const Object o(v, path,
                   {"count", "share", "speed", "cores", "links", "sites", "properties", "capacity_trace",
                    "availability_trace", "trace_reference_model"});
    DeviceClass c;
    c.name = name;
    ClassCount n;
    if (o.has("count") == o.has("share")) fail(path, "give exactly one of \"count\" and \"share\"");
    if (o.has("count")) n.count = o.whole("count", 0, kMaxDevices);
    if (o.has("share")) n.share = share_value(o["share"], o.at("share"));
    if (o.has("capacity_trace") && o.has("speed")) {
      fail(path, "give \"speed\" or \"capacity_trace\", not both (the trace gives each device its speed)");
    }
    if (o.has("trace_reference_model") && !o.has("capacity_trace")) {
      fail(o.at("trace_reference_model"), "only with \"capacity_trace\"");
    }
    if (o.has("capacity_trace")) {
      class_traces(o, base_dir, c);
    } else {
      c.speed_flops = distribution(o.required("speed"), o.at("speed"), false);
    }
    if (o.has("availability_trace")) {
      const auto file = trace_file(o, "availability_trace", base_dir);
      c.availability = std::make_shared<const input::AvailabilityTrace>(trace_checked([&] {
        return input::parse_availability(trace_text(o, "availability_trace", file), o.at("availability_trace"),
                                         file.string());
      }));
    }
    c.cores.value = 1;
    if (o.has("cores")) c.cores = distribution(o["cores"], o.at("cores"), true);
    c.link_shares = shares_of(o.required("links"), o.at("links"), link_names, "link class");
    if (o.has("sites")) c.site_shares = shares_of(o["sites"], o.at("sites"), site_names, "site");
    if (o.has("properties")) c.properties = properties_of(o["properties"], o.at("properties"));
    spec.classes.push_back(std::move(c));
    counts.push_back(n);
  }
  resolve_counts(spec, counts, top, top.at("classes"));

  spec.wan = backbone(top.required("wan"), top.at("wan"));
  spec.cloud.spec.speed_flops = 100e9;
  spec.cloud.spec.cores = 8;
  if (top.has("cloud")) {
    const Object c(top["cloud"], top.at("cloud"), {"host", "speed", "cores", "properties", "ingress"});
    if (c.has("host")) {
      spec.cloud.host = c.string("host");
      check_name(c.at("host"), spec.cloud.host);
    }
    if (c.has("speed")) spec.cloud.spec.speed_flops = c.quantity("speed", Unit::Flops, false);
    if (c.has("cores")) spec.cloud.spec.cores = c.whole("cores", 1, kMaxCores);
    if (c.has("properties")) spec.cloud.spec.properties = properties_of(c["properties"], c.at("properties"));
    if (c.has("ingress")) spec.cloud.ingress = backbone(c["ingress"], c.at("ingress"));
  }
  check_names(spec, where);
  return spec;
}

void check_host_per_device(const FleetSpec& spec, const std::string& shown) {
  if (spec.devices <= kMaxHostDevices) return;
  throw FleetError(shown + ": " + std::to_string(spec.devices) + " devices; a platform with a host per device " +
                   "holds at most " + std::to_string(kMaxHostDevices) +
                   " (a scenario keeps more as records: population.hosts \"slots\")");
}

FleetSpec load_fleet_file(const std::filesystem::path& file) {
  const std::string shown = file.string();
  const std::string content = util::read_input_as<FleetError>(file, util::kFleetInput);
  auto position = [&](const input::TextPosition& p) {
    return shown + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
  };
  if (const auto issue = input::find_json_text_issue(content, /*comments=*/true)) {
    throw FleetError(input::issue_text(*issue, position));
  }
  json doc;
  try {
    doc = json::parse(content, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    // nlohmann's byte offset points just past the character it stopped at.
    input::TextPosition p;
    for (size_t i = 0; i + 1 < e.byte && i < content.size(); ++i) {
      if (content[i] == '\n') {
        ++p.line;
        p.column = 1;
      } else {
        ++p.column;
      }
    }
    const std::string what = e.what();
    const size_t colon = what.rfind(": ");
    throw FleetError(position(p) + ": malformed JSON: " + (colon == std::string::npos ? what : what.substr(colon + 2)));
  } catch (const json::exception& e) {  // found by fuzz/fleet_fuzz: a number beyond a double (1e999)
    const std::string what = e.what();
    const size_t bracket = what.find("] ");
    throw FleetError(shown + ": malformed JSON: " +
                     util::printable(bracket == std::string::npos ? what : what.substr(bracket + 2)));
  }
  try {
    return parse_fleet(doc, "", file.parent_path());
  } catch (const FleetError& e) {
    throw FleetError(shown + ": " + e.what());
  }
}

}  // namespace edgetrain::fleet
