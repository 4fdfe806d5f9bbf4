// See platform_source.hpp.
#include "scenario/platform_source.hpp"

#include <functional>
#include <set>

#include "fleet/draw.hpp"
#include "fleet/parse.hpp"
#include "fleet/xml.hpp"
#include "platform/edit.hpp"
#include "scenario/error.hpp"
#include "scenario/population.hpp"
#include "input/text.hpp"
#include "scenario/validate.hpp"
#include "util/memory.hpp"
#include "util/read_input.hpp"

namespace edgetrain::scenario {

namespace text = input::text;
namespace {

// What a fleet description costs before the run's estimate can look at it (its records, or its hosts),
// refused when the machine has not that much: "<at>: <what> X but Y are available<way_out>".
void check_fits(const std::string& at, double bytes, const std::string& what, const std::string& way_out) {
  const auto available = util::available_memory();
  if (!available || bytes <= *available) return;
  throw ScenarioError(at + ": " + what + " " + util::format_bytes(bytes) + " but " + util::format_bytes(*available) +
                      " are available" + way_out);
}

using nlohmann::json;
namespace fs = std::filesystem;

// The object form's own keys; anything else is a fleet description's key.
const std::vector<std::string> kOwnKeys = {"file", "links", "hosts"};

std::string read_file(const fs::path& file) { return util::read_input_as<ScenarioError>(file, util::kPlatformInput); }

// A platform check's message as the scenario module's one error type.
template <class F>
auto checked(F&& f) {
  try {
    return f();
  } catch (const platform::PlatformFileError& e) {
    throw ScenarioError(e.what());
  }
}

// A fleet description error as the scenario module's one error type.
template <class F>
auto fleet_checked(F&& f) {
  try {
    return f();
  } catch (const fleet::FleetError& e) {
    throw ScenarioError(e.what());
  }
}

// A fleet description is JSON (its first character "{", or a comment); a SimGrid platform is XML.
bool is_fleet_description(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos &&
         (text[first] == '{' || text.compare(first, 2, "//") == 0 || text.compare(first, 2, "/*") == 0);
}

const KeySpec& row(const std::string& path) {
  const KeySpec* k = find_key(path);
  if (!k) throw ScenarioError(path + ": internal error: the schema has no such row");
  return *k;
}

// "no link \"x\" in quickstart.xml (did you mean \"y\"?)", or the first few names.
std::string unknown_name(const std::string& what, const std::string& name, const std::vector<std::string>& names,
                         const fs::path& file) {
  std::string msg = "no " + what + " " + text::show(name) + " in platform " + file.filename().string();
  if (auto near = text::closest(name, names)) return msg + " (did you mean \"" + *near + "\"?)";
  constexpr size_t kShown = 8;
  std::vector<std::string> shown(names.begin(), names.begin() + std::min(names.size(), kShown));
  if (names.size() > kShown) shown.push_back("...");
  return msg + " (" + what + "s: " + text::join(shown, ", ") + ")";
}

void check_object(const json& v, const std::string& at, const std::string& holds) {
  if (!v.is_object()) throw ScenarioError(at + ": expected an object " + holds + ", got " + text::show(v));
}

// The keys an entry of `platform.links` or `platform.hosts` may hold.
void check_entry_keys(const json& entry, const std::string& at, const std::vector<std::string>& keys) {
  check_object(entry, at, "with keys " + text::join(keys, ", "));
  for (const auto& [key, value] : entry.items()) {
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    std::string msg = at + "." + key + ": unknown key";
    if (auto near = text::closest(key, keys)) throw ScenarioError(msg + " (did you mean \"" + *near + "\"?)");
    throw ScenarioError(msg + " (expected one of: " + text::join(keys, ", ") + ")");
  }
}

}  // namespace

json PlatformSource::resolve(const json& raw, const std::string& at, const ResolveContext& ctx, uint64_t seed,
                             bool slots) {
  *this = PlatformSource();
  slots_ = slots;
  const json object = raw.is_string() ? json{{"file", raw}} : raw;
  if (!object.is_object()) {
    throw ScenarioError(at + ": expected a path to the platform file, or an object {\"file\": ..., \"links\": ..., " +
                        "\"hosts\": ...}, got " + text::show(raw));
  }
  if (!object.contains("file")) throw ScenarioError(at + ".file: required key is missing (the platform file)");
  const json file = check_value(row("platform.file"), object.at("file"), raw.is_string() ? at : at + ".file", ctx);
  file_ = file.get<std::string>();
  json patch = json::object();  // a fleet description's keys given here
  const bool fleet = is_fleet_description(base_text());
  for (const auto& [key, value] : object.items()) {
    if (std::find(kOwnKeys.begin(), kOwnKeys.end(), key) != kOwnKeys.end()) continue;
    if (fleet) {
      patch[key] = value;
      continue;
    }
    std::string msg = at + "." + key + ": unknown key";
    if (auto near = text::closest(key, kOwnKeys)) msg += " (did you mean \"" + *near + "\"?)";
    throw ScenarioError(msg + " (" + file_.filename().string() +
                        " is a SimGrid platform: its object form takes file, links and hosts)");
  }
  json resolved = {{"file", file}};
  if (slots_ && !fleet) {
    throw ScenarioError("population.hosts: \"slots\" places the devices of a fleet description; " +
                        file_.filename().string() + " is a SimGrid platform (see docs/how-to/populations.md)");
  }
  if (slots_ && (object.contains("links") || object.contains("hosts"))) {
    throw ScenarioError(at + ": with population.hosts \"slots\" change the fleet description's keys (e.g. " + at +
                        ".link_classes), not the links and hosts of a platform");
  }
  if (fleet) generate_fleet(patch, at, seed, resolved);

  // The what-ifs, checked against the platform: names exist, values are in range.
  std::vector<platform::AttributeEdit> edits;
  std::vector<std::string> notes;
  struct Pending {
    std::string key;
    json value;
    size_t edit;  // index into edits, or npos: a link direction (before filled here)
    json before;
  };
  std::vector<Pending> pending;
  auto quantity = [&](const std::string& row_path, const json& v, const std::string& key_at) -> std::optional<json> {
    if (v.is_null()) return std::nullopt;  // the file's value
    return check_value(row(row_path), v, key_at, ctx);
  };
  if (object.contains("links")) {
    const std::string links_at = at + ".links";
    check_object(object.at("links"), links_at, "of link names, e.g. {\"cloud-ingress\": {\"bandwidth\": \"1Gbps\"}}");
    const platform::PlatformInfo& platform = info();
    std::vector<std::string> names;
    for (const auto& [name, place] : platform.links) {
      if (place.element == "link" || place.element == "backbone") names.push_back(name);
    }
    for (const auto& [name, entry] : object.at("links").items()) {
      const std::string link_at = links_at + "." + name;
      check_entry_keys(entry, link_at, {"bandwidth", "latency"});
      const auto it = platform.links.find(name);
      if (it == platform.links.end()) throw ScenarioError(link_at + ": " + unknown_name("link", name, names, file_));
      const platform::LinkPlace& place = it->second;
      if (place.element != "link" && place.element != "backbone") {
        throw ScenarioError(link_at + ": link " + text::show(name) + " is made by a <" + place.element +
                            "> element; what-ifs change <link> and <backbone> elements");
      }
      if (place.policy == "WIFI") {
        throw ScenarioError(link_at + ": " + text::show(name) +
                            " is a Wi-Fi link, whose bandwidth is a list of rates: what-ifs do not change Wi-Fi links");
      }
      // A direction of a SPLITDUPLEX link: "<id>_UP" or "<id>_DOWN" of the <link> "<id>".
      std::string declared = name;
      for (const char* half : {"_UP", "_DOWN"}) {
        const std::string suffix = half;
        if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
          continue;
        }
        const std::string base = name.substr(0, name.size() - suffix.size());
        const auto b = platform.links.find(base);
        if (b != platform.links.end() && b->second.policy == "SPLITDUPLEX") declared = base;
      }
      const bool direction = declared != name;
      LinkDirectionSetting setting{name, std::nullopt, std::nullopt};
      json resolved_entry = json::object();
      const std::pair<const char*, platform::Attribute> attributes[] = {{"bandwidth", platform::Attribute::Bandwidth},
                                                                        {"latency", platform::Attribute::Latency}};
      for (const auto& [key, attribute] : attributes) {
        if (!entry.contains(key)) continue;
        const std::string key_at = link_at + "." + key;
        const std::optional<json> v = quantity("platform.links.<link>." + std::string(key), entry.at(key), key_at);
        if (!v) continue;
        resolved_entry[key] = *v;
        if (direction) {
          (attribute == platform::Attribute::Bandwidth ? setting.bandwidth_bps : setting.latency_s) = v->get<double>();
          pending.push_back({key_at, entry.at(key), std::string::npos,
                             checked([&, attribute = attribute] {  // a copy: clang 14 cannot capture bindings
                               return platform::attribute_text(base_text(), declared, attribute);
                             })});
        } else {
          pending.push_back({key_at, entry.at(key), edits.size(), nullptr});
          edits.push_back({declared, attribute, platform::simgrid_text(v->get<double>(), attribute)});
        }
      }
      if (direction && (setting.bandwidth_bps || setting.latency_s)) {
        directions_.push_back(setting);
        notes.push_back(name + " set when the platform is loaded (one direction of SPLITDUPLEX link " + declared + ")");
      }
      if (!resolved_entry.empty()) resolved["links"][name] = resolved_entry;
    }
  }
  if (object.contains("hosts")) {
    const std::string hosts_at = at + ".hosts";
    check_object(object.at("hosts"), hosts_at, "of host names, e.g. {\"pi-1\": {\"speed\": \"2Gf\"}}");
    const platform::PlatformInfo& platform = info();
    for (const auto& [name, entry] : object.at("hosts").items()) {
      const std::string host_at = hosts_at + "." + name;
      check_entry_keys(entry, host_at, {"speed", "cores"});
      const auto it = platform.hosts.find(name);
      if (it == platform.hosts.end()) {
        throw ScenarioError(host_at + ": " + unknown_name("host", name, platform.host_order, file_));
      }
      if (it->second.element != "host") {
        throw ScenarioError(host_at + ": host " + text::show(name) + " is made by a <" + it->second.element +
                            "> element; what-ifs change <host> elements");
      }
      json resolved_entry = json::object();
      if (entry.contains("speed")) {
        const std::string key_at = host_at + ".speed";
        if (const auto v = quantity("platform.hosts.<host>.speed", entry.at("speed"), key_at)) {
          const std::string before =
              checked([&, &name = name] {  // named: clang 14 cannot capture bindings
                return platform::attribute_text(base_text(), name, platform::Attribute::Speed);
              });
          if (before.find(',') != std::string::npos) {
            throw ScenarioError(key_at + ": host " + text::show(name) + " has several pstate speeds (" + before +
                                "); what-ifs change hosts of one speed");
          }
          resolved_entry["speed"] = *v;
          pending.push_back({key_at, entry.at("speed"), edits.size(), nullptr});
          edits.push_back(
              {name, platform::Attribute::Speed, platform::simgrid_text(v->get<double>(), platform::Attribute::Speed)});
        }
      }
      if (entry.contains("cores") && !entry.at("cores").is_null()) {
        const std::string key_at = host_at + ".cores";
        const json v = check_value(row("platform.hosts.<host>.cores"), entry.at("cores"), key_at, ctx);
        resolved_entry["cores"] = v;
        pending.push_back({key_at, entry.at("cores"), edits.size(), nullptr});
        edits.push_back({name, platform::Attribute::Cores, std::to_string(v.get<int64_t>())});
      }
      if (!resolved_entry.empty()) resolved["hosts"][name] = resolved_entry;
    }
  }

  if (!edits.empty() || !directions_.empty()) {
    std::vector<std::string> changed;
    for (const auto& e : edits) changed.push_back(e.id + " " + e.text);  // e.g. "cloud-ingress 1e+09bps"
    changed.insert(changed.end(), notes.begin(), notes.end());
    const std::string note = "edgetrain what-ifs on " + file_.filename().string() + ": " + text::join(changed, "; ");
    const platform::EditedText out = checked([&] { return platform::edit_platform_text(base_text(), edits, note); });
    edited_ = out.xml;
    for (Pending& p : pending) {
      if (p.edit != std::string::npos) p.before = out.before[p.edit];
    }
    // Checked again as SimGrid will read it (and the selectors see the edited platform).
    info_ = std::make_shared<platform::PlatformInfo>(
        checked([&] { return platform::check_platform_text(edited_, file_.string() + " (with what-ifs)"); }));
  }
  for (Pending& p : pending) overrides_.push_back({p.key, p.value, p.before});
  if (resolved.size() == 1) return file;  // nothing changed: the plain path, as before what-ifs existed
  return resolved;
}

void PlatformSource::generate_fleet(const json& patch, const std::string& at, uint64_t scenario_seed, json& resolved) {
  // base_text() holds the description until the generated platform replaces it below.
  // The file alone first, so that its own mistakes are reported with its name and line.
  fleet_checked([&] { fleet::load_fleet_file(file_); });
  json description = json::parse(base_text(), nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  // The scenario's keys over the file's (JSON merge patch: objects merge, null removes a key),
  // each recorded with the description's value before.
  std::function<void(const json&, const std::string&, const json*)> record = [&](const json& p, const std::string& key,
                                                                                 const json* before) {
    for (const auto& [k, v] : p.items()) {
      const json* b = before && before->is_object() && before->contains(k) ? &before->at(k) : nullptr;
      if (v.is_object() && !v.empty() && (!b || b->is_object())) {
        record(v, key + "." + k, b);
      } else {
        overrides_.push_back({key + "." + k, v, b ? *b : json(nullptr)});
      }
    }
  };
  record(patch, at, &description);
  description.merge_patch(patch);
  const fleet::FleetSpec spec = fleet_checked([&] { return fleet::parse_fleet(description, at, file_.parent_path()); });
  const bool own_seed = description.contains("seed") && !description.at("seed").is_null();
  const uint64_t seed = own_seed ? spec.seed : scenario_seed;
  generated_ = true;
  for (const auto& [k, v] : patch.items()) resolved[k] = v;
  if (slots_) {
    // The platform of host slots is written once the scenario says how many a round needs
    // (place_population); until then there are no hosts to read.
    // The records are drawn before the memory estimate can look at the run: their own cost first.
    check_fits(at, static_cast<double>(spec.devices) * kPopulationDeviceBytes,
               std::to_string(spec.devices) + " devices as records need about", "");
    population_ = std::make_shared<Population>();
    population_->spec = spec;
    population_->fleet = fleet::draw_fleet(population_->spec, seed);
    base_ = "";
    return;
  }
  if (spec.devices > fleet::kMaxHostDevices) {
    throw ScenarioError(at + ": " + std::to_string(spec.devices) + " devices with a host each; at most " +
                        std::to_string(fleet::kMaxHostDevices) +
                        " (a larger platform takes SimGrid too long to load): give population.hosts \"slots\" to keep "
                        "them as records");
  }
  // A host each costs at least kActivityDeviceBytes in the run (kHostDeviceBytes as an actor): refused here,
  // before the platform of a million hosts is written and checked (half a minute, gigabytes), with the way out.
  check_fits(at, static_cast<double>(spec.devices) * kActivityDeviceBytes,
             std::to_string(spec.devices) + " devices with a host each need at least",
             "; population.hosts: slots holds their records in about " +
                 util::format_bytes(static_cast<double>(spec.devices) * kPopulationDeviceBytes) +
                 ", with hosts only for the devices a round picks (docs/how-to/populations.md)");
  base_ = fleet::platform_xml(spec, seed);
  info();  // checked now (the run uses this check): a generated platform always has one
}

const std::string& PlatformSource::base_text() {
  if (!base_) base_ = read_file(file_);
  return *base_;
}

const platform::PlatformInfo& PlatformSource::info() {
  if (slots_) {
    throw ScenarioError("population.hosts: with \"slots\" the platform's hosts are made for the run; a scenario "
                        "names no host but the server (the flat topology, devices {\"role\": \"device\"})");
  }
  if (!info_) {
    const std::string& text = edited_.empty() ? base_text() : edited_;
    info_ = std::make_shared<platform::PlatformInfo>(checked(
        [&] { return platform::check_platform_text(text, file_.string() + (generated_ ? " (generated)" : "")); }));
  }
  return *info_;
}

void PlatformSource::fill(Scenario& s) {
  s.platform = file_;
  s.platform_xml = edited_.empty() && generated_ ? base_text() : edited_;
  s.platform_generated = generated_;
  s.platform_overrides = overrides_;
  s.link_directions = directions_;
  s.platform_info = info_;
  if (selector_) s.resolved["devices"] = *selector_;
  if (!population_) return;
  place_population(*population_, s);
  s.population = population_;
  s.devices.clear();
  s.devices.reserve(population_->fleet.devices.size());
  for (const fleet::Device& d : population_->fleet.devices) s.devices.push_back({d.host, "", {}});
}

}  // namespace edgetrain::scenario
