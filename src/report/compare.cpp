// Runs side by side and their scenarios' differences (see compare.hpp).
#include "report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "util/printable.hpp"

namespace edgetrain::report {

namespace fs = std::filesystem;

namespace {

nlohmann::json read_json(const fs::path& file) {
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (!fs::exists(status)) throw CompareError(file.string() + ": cannot read it (not a run folder?)");
  // Results are read as untrusted input: a regular file (a FIFO would block), of a bounded size.
  if (!fs::is_regular_file(status)) throw CompareError(file.string() + ": not a regular file");
  if (fs::file_size(file, ec) > kMaxRunFileBytes) {
    throw CompareError(file.string() + ": more than the " + std::to_string(kMaxRunFileBytes >> 20) +
                       " MB edgetrain reads of a results file");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CompareError(file.string() + ": cannot read it (not a run folder?)");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return parse_run_file(text, file.string());
}

void flatten_into(const nlohmann::json& j, const std::string& path, std::map<std::string, nlohmann::json>& out) {
  if (j.is_object() && !j.empty()) {
    for (const auto& [key, value] : j.items()) flatten_into(value, path.empty() ? key : path + "." + key, out);
  } else if (j.is_array() && !j.empty()) {
    for (size_t i = 0; i < j.size(); ++i) flatten_into(j[i], path + "." + std::to_string(i), out);
  } else {
    out[path] = j;
  }
}

// `devices.3.stream.rate` -> `devices.*.stream.rate`.
std::string index_pattern(const std::string& key) {
  std::string out, segment;
  std::istringstream in(key);
  bool first = true;
  while (std::getline(in, segment, '.')) {
    const bool index = !segment.empty() && std::all_of(segment.begin(), segment.end(), ::isdigit);
    out += (first ? "" : ".") + (index ? std::string("*") : segment);
    first = false;
  }
  return out;
}

// The figures compared, in order, each shown when some run has it (energy_j, the bytes of a
// topology's levels); a dotted key is nested ("round_s.median": round_s's median).
struct Wanted {
  const char* key;
  const char* label;
};
constexpr Wanted kFigures[] = {
    {"status", "status"},
    {"time_to_target_s", "time to target"},
    {"rounds", "rounds"},
    {"sim_time_s", "simulated time"},
    {"round_s.mean", "round time (mean)"},
    {"round_s.median", "round time (median)"},
    {"round_s.p95", "round time (p95)"},
    {"bytes_up", "bytes up"},
    {"bytes_down", "bytes down"},
    {"bytes_to_server", "bytes to server"},
    {"bytes_from_server", "bytes from server"},
    {"bytes_by_level.device_to_site", "bytes device -> site"},
    {"bytes_by_level.site_to_cloud", "bytes site -> cloud"},
    {"bytes_by_level.cloud_to_site", "bytes cloud -> site"},
    {"bytes_by_level.site_to_device", "bytes site -> device"},
    {"final_test_accuracy", "final accuracy"},
    {"best_test_accuracy", "best accuracy"},
    {"energy_j", "energy"},
};

// The figure at a (dotted) key; nullopt when a run lacks it (a null section lacks its members).
std::optional<nlohmann::json> figure(const nlohmann::json& summary, const std::string& key) {
  const nlohmann::json* at = &summary;
  size_t start = 0;
  while (true) {
    const size_t dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object() || !at->contains(part)) return std::nullopt;
    at = &at->at(part);
    if (dot == std::string::npos) return *at;
    start = dot + 1;
  }
}

std::optional<double> number(const nlohmann::json& summary, const std::string& key) {
  const auto it = summary.find(key);
  if (it == summary.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string format_double(double v, const char* spec) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, spec, v);
  return buffer;
}

// A byte count as edgetrain's summary prints it (SI units).
std::string human_bytes(double v) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int u = 0;
  while (std::fabs(v) >= 1000 && u < 4) {
    v /= 1000;
    ++u;
  }
  return u == 0 ? format_double(v, "%.0f B") : format_double(v, "%.1f ") + units[u];
}

std::string cell(const std::string& key, const std::optional<nlohmann::json>& value) {
  if (!value) return "-";
  const nlohmann::json& v = *value;
  if (v.is_null()) return key == "time_to_target_s" ? "not reached" : "-";
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_number()) return v.dump();
  const double d = v.get<double>();
  if ((key.size() > 2 && key.compare(key.size() - 2, 2, "_s") == 0) || key.rfind("round_s.", 0) == 0)
    return format_double(d, "%.2f s");
  if (key.rfind("bytes_", 0) == 0) return human_bytes(d);
  if (key == "energy_j") return format_double(d, "%.1f J");
  if (key.find("accuracy") != std::string::npos) return format_double(d, "%.4f");
  return v.dump();
}

std::string value_text(const std::optional<nlohmann::json>& v) { return v ? v->dump() : "(absent)"; }

void append_table(std::ostringstream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    out << line << "\n";
  }
}

std::vector<std::string> run_labels(const Comparison& c) {
  std::vector<std::string> labels;
  for (size_t i = 0; i < c.folders.size(); ++i) labels.push_back("[" + std::to_string(i + 1) + "]");
  return labels;
}

const std::string& key_of(const std::string& key) { return key; }
template <class V>
const std::string& key_of(const std::pair<const std::string, V>& entry) { return entry.first; }

// Whether the sorted `keys` (a set, or a map's keys) hold one below `section` ("privacy.dp.clip").
template <class Sorted>
bool has_key_below(const Sorted& keys, const std::string& section) {
  const auto next = keys.lower_bound(section + ".");
  return next != keys.end() && key_of(*next).rfind(section + ".", 0) == 0;
}

}  // namespace

nlohmann::json parse_run_file(const std::string& text, const std::string& shown) {
  // Depth is refused while parsing: the comparison walks documents recursively.
  const nlohmann::json::parser_callback_t depth = [&](int level, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (level > static_cast<int>(kMaxRunFileDepth)) {
      throw CompareError(shown + ": nesting deeper than " + std::to_string(kMaxRunFileDepth) + " levels");
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, depth);
  } catch (const nlohmann::json::exception& e) {
    throw CompareError(shown + ": not valid JSON (" + util::printable(e.what()) + ")");
  }
}

RunRecord load_run_record(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) throw CompareError(folder.string() + ": no such folder");
  RunRecord r;
  r.folder = folder.string();
  r.summary = read_json(folder / "summary.json");
  r.scenario = read_json(folder / "scenario.json");
  if (!r.summary.is_object()) throw CompareError((folder / "summary.json").string() + ": not a JSON object");
  return r;
}

std::map<std::string, nlohmann::json> flatten(const nlohmann::json& document) {
  std::map<std::string, nlohmann::json> out;
  flatten_into(document, "", out);
  return out;
}

Comparison compare_runs(const std::vector<RunRecord>& runs, const DefaultOf& default_of, const IsSwitch& is_switch) {
  Comparison c;
  for (const RunRecord& r : runs) c.folders.push_back(r.folder);
  for (const Wanted& w : kFigures) {
    Comparison::Figure f{w.key, w.label, {}};
    bool any = false;
    // The server's bytes are a row of their own only where some run's differ from its devices' (sites,
    // peers): in flat runs they are bytes up and down.
    const std::string same_as = w.key == std::string("bytes_to_server")     ? "bytes_up"
                                : w.key == std::string("bytes_from_server") ? "bytes_down"
                                                                            : "";
    bool differs = same_as.empty();
    for (const RunRecord& r : runs) {
      f.values.push_back(figure(r.summary, w.key));
      any = any || f.values.back().has_value();
      differs = differs || (f.values.back() && f.values.back() != figure(r.summary, same_as));
    }
    if (any && differs) c.figures.push_back(std::move(f));
  }
  // Time to target when the first run reached its target (runs that did not have no speed-up);
  // otherwise simulated time, which compares like with like when the runs stop alike.
  c.speedup_basis = runs.empty() || !number(runs[0].summary, "time_to_target_s") ? "sim_time_s" : "time_to_target_s";
  const std::optional<double> reference = runs.empty() ? std::nullopt : number(runs[0].summary, c.speedup_basis);
  for (const RunRecord& r : runs) {
    const std::optional<double> mine = number(r.summary, c.speedup_basis);
    c.speedup.push_back(reference && mine && *mine > 0 ? std::optional<double>(*reference / *mine) : std::nullopt);
  }
  std::vector<std::map<std::string, nlohmann::json>> flat;
  std::set<std::string> keys;
  for (const RunRecord& r : runs) {
    flat.push_back(flatten(r.scenario));
    for (const auto& [k, v] : flat.back()) keys.insert(k);
  }
  // A section one run left null and another gave keys (`compression`): compared by its keys, the null
  // run's taking their defaults.
  auto is_section = [&](const std::string& key) { return has_key_below(keys, key); };
  // Switches (sections whose null is off): each run's state, on or off, for every one the keys reach.
  std::map<std::string, std::vector<bool>> switches;
  if (is_switch) {
    std::set<std::string> asked;  // each section's prefix asked once (a fleet's keys share theirs)
    for (const std::string& key : keys) {
      for (size_t dot = key.find('.'); ; dot = key.find('.', dot + 1)) {
        const std::string section = key.substr(0, dot);
        if (asked.insert(section).second && is_switch(section)) {
          std::vector<bool>& on = switches[section];
          for (const auto& f : flat) {  // on: given as a leaf ({}) or with keys below it
            const auto leaf = f.find(section);
            on.push_back((leaf != f.end() && !leaf->second.is_null()) || has_key_below(f, section));
          }
        }
        if (dot == std::string::npos) break;
      }
    }
  }
  // The switch a key lies under (the innermost), or none.
  auto switch_of = [&](const std::string& key) -> const std::vector<bool>* {
    const std::vector<bool>* found = nullptr;
    for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', dot + 1)) {
      const auto it = switches.find(key.substr(0, dot));
      if (it != switches.end()) found = &it->second;
    }
    return found;
  };
  // Keys that differ, grouped by their pattern (list indices as `*`): a change every device shares is
  // one row `devices.*.stream.rate`, not one per device.
  std::map<std::string, std::vector<Comparison::Difference>> by_pattern;
  std::vector<std::string> patterns;  // in the order of their first key
  auto add = [&](Comparison::Difference d) {
    const std::string pattern = index_pattern(d.key);
    if (!by_pattern.count(pattern)) patterns.push_back(pattern);
    by_pattern[pattern].push_back(std::move(d));
  };
  for (const auto& entry : switches) {  // no structured binding: clang 14 cannot capture one in a lambda
    const std::vector<bool>& on = entry.second;
    if (std::all_of(on.begin(), on.end(), [&](bool s) { return s == on.front(); })) continue;
    Comparison::Difference d{entry.first, {}, {}};
    for (bool s : on) {
      d.values.emplace_back(s ? "on" : "off");
      d.defaulted.push_back(false);
    }
    add(std::move(d));
  }
  for (const std::string& key : keys) {
    if (switches.count(key)) continue;  // a row of its own above, where the runs differ
    const std::vector<bool>* under = switch_of(key);
    Comparison::Difference d{key, {}, {}};
    bool null_section = false;
    for (size_t i = 0; i < flat.size(); ++i) {
      if (under && !(*under)[i]) {  // the mechanism is off in this run: its keys do not apply
        d.values.emplace_back();
        d.defaulted.push_back(false);
        continue;
      }
      const auto it = flat[i].find(key);
      std::optional<nlohmann::json> value;
      if (it != flat[i].end()) {
        value = it->second;
      } else if (default_of) {
        value = default_of(key, runs[i].scenario);
      }
      null_section = null_section || (it != flat[i].end() && it->second.is_null() && is_section(key));
      d.defaulted.push_back(it == flat[i].end() && value.has_value());
      d.values.push_back(std::move(value));
    }
    if (null_section && default_of) continue;
    // Compared among the runs where the key applies (its switch on).
    std::vector<const std::optional<nlohmann::json>*> applying;
    for (size_t i = 0; i < d.values.size(); ++i)
      if (!under || (*under)[i]) applying.push_back(&d.values[i]);
    // A mechanism's kind is shown wherever the mechanism differs (strategy off against fedadam), even when
    // the runs that have it agree on it: "on" alone does not say which.
    const bool kind_of_switch = under && key.size() > 5 && key.compare(key.size() - 5, 5, ".kind") == 0 &&
                                switches.count(key.substr(0, key.size() - 5)) &&
                                !std::all_of(under->begin(), under->end(), [&](bool on) { return on == under->front(); });
    if (!kind_of_switch &&
        std::none_of(applying.begin(), applying.end(), [&](const auto* v) { return *v != *applying.front(); }))
      continue;
    add(std::move(d));
  }
  for (const std::string& pattern : patterns) {
    auto& members = by_pattern[pattern];
    const bool shared = members.size() > 1 && std::all_of(members.begin(), members.end(), [&](const auto& m) {
                          return m.values == members.front().values && m.defaulted == members.front().defaulted;
                        });
    if (shared) {
      c.differences.push_back({pattern, members.front().values, members.front().defaulted});
    } else {
      for (auto& m : members) c.differences.push_back(std::move(m));
    }
  }
  return c;
}

std::string format_text(const Comparison& c, size_t max_differences) {
  std::ostringstream out;
  const std::vector<std::string> labels = run_labels(c);
  for (size_t i = 0; i < c.folders.size(); ++i) out << labels[i] << " " << c.folders[i] << "\n";
  out << "\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {""};
  head.insert(head.end(), labels.begin(), labels.end());
  rows.push_back(head);
  for (const auto& f : c.figures) {
    std::vector<std::string> row = {f.label};
    for (const auto& v : f.values) row.push_back(cell(f.key, v));
    rows.push_back(row);
  }
  std::vector<std::string> speed = {c.speedup_basis == "time_to_target_s" ? "speed-up (time to target)"
                                                                          : "speed-up (simulated time)"};
  for (const auto& s : c.speedup) speed.push_back(s ? format_double(*s, "%.2fx") : "-");
  rows.push_back(speed);
  append_table(out, rows);
  out << "\n";
  if (c.differences.empty()) {
    out << "The resolved scenarios are identical.\n";
    return out.str();
  }
  out << "Scenario keys that differ (" << c.differences.size() << "):\n";
  rows = {head};
  rows.front().front() = "key";
  const size_t shown = max_differences == 0 ? c.differences.size() : std::min(max_differences, c.differences.size());
  for (size_t i = 0; i < shown; ++i) {
    const Comparison::Difference& d = c.differences[i];
    std::vector<std::string> row = {d.key};
    for (size_t r = 0; r < d.values.size(); ++r) row.push_back(value_text(d.values[r]) + (d.defaulted[r] ? " (default)" : ""));
    rows.push_back(row);
  }
  append_table(out, rows);
  if (shown < c.differences.size())
    out << "... and " << c.differences.size() - shown << " more (--all shows every key)\n";
  return out.str();
}

nlohmann::json to_json(const Comparison& c) {
  auto values = [](const std::vector<std::optional<nlohmann::json>>& vs) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& v : vs) a.push_back(v ? *v : nlohmann::json());
    return a;
  };
  nlohmann::json j;
  j["runs"] = c.folders;
  j["figures"] = nlohmann::json::object();
  for (const auto& f : c.figures) j["figures"][f.key] = values(f.values);
  nlohmann::json speedup = nlohmann::json::array();
  for (const auto& s : c.speedup) speedup.push_back(s ? nlohmann::json(*s) : nlohmann::json());
  j["speedup"] = {{"basis", c.speedup_basis}, {"values", speedup}};
  j["differences"] = nlohmann::json::object();
  for (const auto& d : c.differences) j["differences"][d.key] = values(d.values);
  return j;
}

}  // namespace edgetrain::report
