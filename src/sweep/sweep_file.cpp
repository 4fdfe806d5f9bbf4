// See sweep_file.hpp.
#include "sweep/sweep_file.hpp"

#include <algorithm>
#include <cstdio>

#include "input/json_text.hpp"
#include "util/printable.hpp"
#include "util/stop_flag.hpp"
#include "util/read_input.hpp"

namespace edgetrain::sweep {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// Dotted scenario keys: non-empty segments, no "=" (it would end the key in --set).
void check_key(const std::string& key, const std::string& at) {
  const bool empty_segment =
      key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos;
  if (empty_segment || key.find('=') != std::string::npos) {
    throw SweepError(at + ": \"" + util::printable(key) + "\" is not a dotted scenario key (e.g. training.lr)");
  }
}

nlohmann::json plain(const ojson& v) { return nlohmann::json::parse(v.dump()); }

// runs[].label: a short printable name for figures and tables.
std::string checked_label(const ojson& value, const std::string& at) {
  if (!value.is_string() || value.get<std::string>().empty())
    throw SweepError(at + ": expected a non-empty string, the run's name in figures and tables");
  const std::string label = value.get<std::string>();
  if (util::printable(label) != label)
    throw SweepError(at + ": \"" + util::printable(label) + "\" holds a character that is not printable");
  if (label.size() > kMaxLabelLength)
    throw SweepError(at + ": " + std::to_string(label.size()) + " characters, at most " +
                     std::to_string(kMaxLabelLength) + " (a legend entry)");
  return label;
}

}  // namespace

SweepSpec expand(const ojson& grid, const ojson& runs, const std::string& shown) {
  SweepSpec spec;
  std::vector<std::pair<std::string, std::vector<nlohmann::json>>> axes;
  if (!grid.is_null()) {
    if (!grid.is_object() || grid.empty()) {
      throw SweepError(shown + ": grid: expected an object of key -> list of values, e.g. {\"seed\": [1, 2]}");
    }
    for (const auto& [key, values] : grid.items()) {
      const std::string at = shown + ": grid." + util::printable(key);
      check_key(key, shown + ": grid");
      if (!values.is_array() || values.empty()) throw SweepError(at + ": expected a non-empty list of values");
      std::vector<nlohmann::json> list;
      for (const auto& v : values) list.push_back(plain(v));
      axes.emplace_back(key, std::move(list));
      spec.varied.push_back(key);
    }
  }
  std::vector<Overrides> explicit_runs;
  std::vector<std::string> run_labels;
  spec.grid_keys = spec.varied;
  if (!runs.is_null()) {
    if (!runs.is_array() || runs.empty()) {
      throw SweepError(shown + ": runs: expected a non-empty list of objects, e.g. [{\"training.lr\": 0.1}]");
    }
    for (size_t i = 0; i < runs.size(); ++i) {
      const std::string at = shown + ": runs[" + std::to_string(i) + "]";
      if (!runs[i].is_object()) throw SweepError(at + ": expected an object of key -> value");
      Overrides run;
      std::string label;
      for (const auto& [key, value] : runs[i].items()) {
        if (key == "label") {
          label = checked_label(value, at + ".label");
          continue;
        }
        check_key(key, at);
        if (grid.is_object() && grid.contains(key)) {
          throw SweepError(at + "." + util::printable(key) + ": also in grid (a run cannot override a grid key)");
        }
        if (std::find(spec.varied.begin(), spec.varied.end(), key) == spec.varied.end()) spec.varied.push_back(key);
        run.emplace_back(key, plain(value));
      }
      explicit_runs.push_back(std::move(run));
      run_labels.push_back(std::move(label));
    }
  }
  if (axes.empty() && explicit_runs.empty()) {
    throw SweepError(shown + ": nothing to vary: give \"grid\" and/or \"runs\"");
  }
  if (explicit_runs.empty()) {  // the grid alone
    explicit_runs.emplace_back();
    run_labels.emplace_back();
  }
  // Counted before anything is expanded (in double: 10^12 runs and more stay exact enough to say).
  double count = static_cast<double>(explicit_runs.size());
  std::string factors;
  for (const auto& axis : axes) {
    count *= static_cast<double>(axis.second.size());
    factors += (factors.empty() ? "" : " x ") + std::to_string(axis.second.size());
  }
  if (!runs.is_null()) factors += (factors.empty() ? "" : " x ") + std::to_string(explicit_runs.size()) + " runs";
  if (count > static_cast<double>(kMaxSweepRuns)) {
    char shown_count[32];
    std::snprintf(shown_count, sizeof shown_count, "%.4g", count);
    throw SweepError(shown + ": " + shown_count + " runs (" + factors + "), more than the " +
                     std::to_string(kMaxSweepRuns) + " a sweep may hold: split it into several sweeps");
  }
  // Mixed-radix counter over the axes, the last one varying fastest.
  std::vector<size_t> index(axes.size(), 0);
  while (true) {
    util::throw_if_stopped("expanding the sweep");
    for (size_t r = 0; r < explicit_runs.size(); ++r) {
      const Overrides& run = explicit_runs[r];
      Overrides o;
      for (size_t a = 0; a < axes.size(); ++a) o.emplace_back(axes[a].first, axes[a].second[index[a]]);
      o.insert(o.end(), run.begin(), run.end());
      // Order of `varied`, so that every run lists its keys the same way.
      std::stable_sort(o.begin(), o.end(), [&](const Override& x, const Override& y) {
        return std::find(spec.varied.begin(), spec.varied.end(), x.first) <
               std::find(spec.varied.begin(), spec.varied.end(), y.first);
      });
      spec.runs.push_back(std::move(o));
      spec.labels.push_back(run_labels[r]);
    }
    size_t a = axes.size();
    while (a > 0 && ++index[a - 1] == axes[a - 1].second.size()) index[--a] = 0;
    if (a == 0) break;
  }
  return spec;
}

SweepSpec load_sweep(const fs::path& file) {
  const std::string shown = util::printable(file.string());
  const std::string content = util::read_input_as<SweepError>(file, util::kSweepInput);
  // Nesting and duplicate keys as in scenarios, before the parser (which recurses) sees the text.
  if (const auto issue = input::find_json_text_issue(content, /*comments=*/true)) {
    throw SweepError(util::printable(input::issue_text(*issue, [&](const input::TextPosition& p) {
      return shown + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
    })));
  }
  ojson doc;
  try {
    doc = ojson::parse(content, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const nlohmann::json::exception& e) {
    throw SweepError(shown + ": malformed JSON: " + util::printable(e.what()));
  }
  if (!doc.is_object())
    throw SweepError(shown + ": expected a JSON object {\"base\": ..., \"grid\": ..., \"runs\": ...}");
  for (const auto& [key, value] : doc.items()) {
    if (key != "base" && key != "grid" && key != "runs") {
      throw SweepError(shown + ": " + util::printable(key) + ": unknown key (expected base, grid, runs)");
    }
  }
  if (!doc.contains("base") || !doc["base"].is_string() || doc["base"].get<std::string>().empty()) {
    throw SweepError(shown + ": base: expected the path of the base scenario (relative to the sweep file)");
  }
  const ojson null;
  SweepSpec spec = expand(doc.contains("grid") ? doc["grid"] : null, doc.contains("runs") ? doc["runs"] : null, shown);
  spec.file = fs::absolute(file).lexically_normal();
  spec.base = (spec.file.parent_path() / doc["base"].get<std::string>()).lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(spec.base, ec)) {
    throw SweepError(shown + ": base: " + util::printable(spec.base.string()) + ": no such file");
  }
  return spec;
}

bool SweepSpec::labelled() const {
  return std::any_of(labels.begin(), labels.end(), [](const std::string& l) { return !l.empty(); });
}

std::string set_text(const Override& o) { return o.first + "=" + o.second.dump(); }

std::string cell_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string describe(const Overrides& overrides) {
  std::string text;
  for (const auto& o : overrides) text += (text.empty() ? "" : " ") + o.first + "=" + cell_text(o.second);
  return text;
}

}  // namespace edgetrain::sweep
