// Reading scenarios: file and JSON syntax errors, --set overrides, and the conversion of the
// resolved document (validate.cpp) into the typed Scenario. Also the human summary.
#include "scenario/load.hpp"

#include <cmath>
#include <map>
#include <sstream>
#include <system_error>

#include "learn/catalogue.hpp"
#include "input/json_text.hpp"
#include "scenario/schema.hpp"
#include "input/text.hpp"
#include "scenario/validate.hpp"
#include "util/read_input.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::scenario {

namespace text = input::text;
using input::TextPosition;
using input::find_json_text_issue;
using input::issue_text;
using input::check_json_depth;
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

bool all_digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

// nlohmann reports a byte offset (1-based, of the last character read); people want line:column.
std::pair<size_t, size_t> line_column(const std::string& content, size_t byte) {
  const size_t pos = std::min(byte == 0 ? 0 : byte - 1, content.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < pos; ++i) {
    if (content[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, pos - line_start + 1};
}

// nlohmann's message without its "[json.exception...] parse error at line L, column C: " prefix.
std::string parse_error_detail(const std::string& what) {
  size_t from = what.find("column ");
  if (from == std::string::npos) from = what.find("] ");
  if (from == std::string::npos) return what;
  const size_t colon = what.find(": ", from);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

[[noreturn]] void fail_override(const std::string& shown, const std::string& why) {
  throw ScenarioError(shown + ": " + why);
}

std::vector<int64_t> int_list(const json& v) { return v.get<std::vector<int64_t>>(); }

RateSpec rate_spec(const json& r) {
  RateSpec rate;
  if (r.is_null()) return rate;  // the trace gives the rate
  const json* d = &r;
  if (r.is_string()) {
    rate.preset = r.get<std::string>();
    const RatePreset* p = find_rate_preset(rate.preset);
    if (!p) throw ScenarioError("stream.rate: internal error: unknown preset " + text::show(r));
    d = &p->resolved;
  }
  rate.dist = d->at("dist").get<std::string>();
  if (d->contains("value")) rate.value = d->at("value").get<double>();
  if (d->contains("mean")) rate.mean = d->at("mean").get<double>();
  if (d->contains("spread")) rate.spread = d->at("spread").get<double>();
  if (d->contains("std")) rate.std = d->at("std").get<double>();
  if (d->contains("values")) rate.values = d->at("values").get<std::vector<double>>();
  return rate;
}

StreamSpec stream_spec(const json& st) {
  StreamSpec s;
  s.rate = rate_spec(st.at("rate"));
  s.arrivals = st.at("arrivals").get<std::string>();
  if (!st.at("trace").is_null()) s.trace = st.at("trace").get<std::string>();
  const json& b = st.at("buffer");
  s.buffer.policy = b.at("policy").get<std::string>();
  if (b.contains("capacity_samples")) s.buffer.capacity_samples = b.at("capacity_samples").get<int64_t>();
  s.buffer.window_s = b.at("window_s").get<double>();
  if (!st.at("sample_bytes").is_null()) s.sample_bytes = st.at("sample_bytes").get<int64_t>();
  s.while_off = st.at("while_off").get<std::string>();
  return s;
}

// A resolved interval list ([[off_s, on_s], ...] or null = none).
std::vector<OffInterval> off_intervals(const json& v) {
  std::vector<OffInterval> out;
  if (v.is_null()) return out;
  for (const auto& e : v) out.push_back({e.at(0).get<double>(), e.at(1).get<double>()});
  return out;
}

std::optional<double> optional_number(const json& v) {
  if (v.is_null()) return std::nullopt;
  return v.get<double>();
}

// The resolved `faults` section (not null).
FaultsSpec faults_spec(const json& f) {
  FaultsSpec spec;
  spec.retry_s = f.at("retry_s").get<double>();
  if (!f.at("devices").is_null()) {
    for (const auto& d : f.at("devices")) {
      spec.devices.push_back({d.at("device").get<std::string>(), off_intervals(d.at("off_s")),
                              optional_number(d.at("mtbf_s")), optional_number(d.at("mttr_s"))});
    }
  }
  if (!f.at("links").is_null()) {
    for (const auto& l : f.at("links")) {
      LinkFaultSpec link;
      link.link = l.at("link").get<std::string>();
      if (!l.at("trace").is_null()) link.trace = l.at("trace").get<std::string>();
      link.off = off_intervals(l.at("off_s"));
      spec.links.push_back(std::move(link));
    }
  }
  return spec;
}

// One direction's compressor from its resolved object; keys its kind does not use are absent
// there and keep the struct's defaults.
CompressorSpec compressor_spec(const json& c) {
  CompressorSpec spec;
  spec.kind = c.at("kind").get<std::string>();
  if (c.contains("ratio")) spec.ratio = c.at("ratio").get<double>();
  if (c.contains("scope")) spec.scope = c.at("scope").get<std::string>();
  if (c.contains("index_bits")) spec.packed_indices = c.at("index_bits") == "packed";
  if (c.contains("error_feedback")) spec.error_feedback = c.at("error_feedback").get<bool>();
  if (c.contains("threshold")) spec.threshold = c.at("threshold").get<double>();
  if (c.contains("levels")) spec.levels = c.at("levels").get<int64_t>();
  if (c.contains("rank")) spec.rank = c.at("rank").get<int64_t>();
  if (c.contains("bin_size")) spec.bin_size = c.at("bin_size").get<int64_t>();
  if (c.contains("timing_ratio")) spec.timing_ratio = optional_number(c.at("timing_ratio"));
  return spec;
}

// The resolved topology; a site's members by device index (sites.hpp resolved them by name).
TopologySpec topology_spec(const json& t, const std::vector<DeviceSpec>& devices) {
  TopologySpec spec;
  spec.kind = t.at("kind").get<std::string>();
  if (t.contains("graph")) spec.graph = t.at("graph").get<std::string>();
  if (t.contains("degree")) spec.degree = t.at("degree").get<int64_t>();
  if (!spec.hierarchical()) return spec;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < devices.size(); ++i) index[devices[i].name] = i;
  for (const auto& [host, names] : t.at("sites").items()) {
    SiteSpec& site = spec.sites.emplace_back();
    site.host = host;
    for (const auto& n : names) site.members.push_back(index.at(n.get<std::string>()));
  }
  spec.site_rounds = t.at("site_rounds").get<int64_t>();
  spec.cloud_aggregation = t.at("cloud_aggregation").get<std::string>();
  if (!t.at("site_compression").is_null()) spec.site_compression = compressor_spec(t.at("site_compression"));
  return spec;
}

CompressionSpec compression_spec(const json& c) {
  CompressionSpec spec;
  if (c.is_null()) return spec;  // no compression: uplink none, dense model down
  spec.uplink = compressor_spec(c);
  if (c.contains("adaptive") && !c.at("adaptive").is_null()) {
    const json& a = c.at("adaptive");
    spec.adaptive = AdaptiveSpec{a.at("delta").get<double>(), a.at("smoothing").get<double>()};
  }
  if (!c.at("downlink").is_null()) spec.downlink = compressor_spec(c.at("downlink"));
  return spec;
}

// A resolved compressor in words: "topk (ratio 0.01, scope layer, index_bits 32, error_feedback false)".
std::string compressor_text(const json& c) {
  std::vector<std::string> settings;
  for (const auto& key : child_names("compression")) {  // in table order
    if (key == "kind" || key == "adaptive" || key == "downlink" || !c.contains(key) || c.at(key).is_null()) continue;
    const json& value = c.at(key);
    settings.push_back(key + " " +
                       (value.is_number()   ? text::format_number(value.get<double>())
                        : value.is_string() ? value.get<std::string>()
                                            : value.dump()));
  }
  const std::string kind = c.at("kind").get<std::string>();
  return settings.empty() ? kind : kind + " (" + text::join(settings, ", ") + ")";
}

Scenario to_typed(const json& r) {
  Scenario s;
  s.name = r.at("name").get<std::string>();
  s.seed = r.at("seed").get<uint64_t>();
  const json& platform = r.at("platform");  // a path, or {"file": path, what-ifs...}
  s.platform = (platform.is_object() ? platform.at("file") : platform).get<std::string>();
  s.server = r.at("server").get<std::string>();
  for (const auto& d : r.at("devices")) {
    DeviceSpec dev{d.at("name").get<std::string>(), d.at("host").get<std::string>(), std::nullopt};
    if (!d.at("stream").is_null()) dev.stream = stream_spec(d.at("stream"));
    s.devices.push_back(std::move(dev));
  }
  const json& ds = r.at("dataset");
  if (!ds.at("name").is_null()) s.dataset.name = ds.at("name").get<std::string>();
  if (ds.contains("path")) s.dataset.path = ds.at("path").get<std::string>();
  s.dataset.train_samples = ds.at("train_samples").get<int64_t>();
  if (ds.contains("shape")) s.dataset.shape = int_list(ds.at("shape"));
  if (ds.contains("classes")) s.dataset.classes = ds.at("classes").get<int64_t>();
  if (ds.contains("noise")) s.dataset.noise = ds.at("noise").get<double>();
  const json& part = ds.at("partition");
  s.dataset.partition.kind = part.at("kind").get<std::string>();
  if (part.contains("labels_per_device"))
    s.dataset.partition.labels_per_device = part.at("labels_per_device").get<int64_t>();
  if (part.contains("alpha")) s.dataset.partition.alpha = part.at("alpha").get<double>();
  const json& m = r.at("model");
  s.model.name = m.at("name").get<std::string>();
  if (m.contains("hidden")) s.model.hidden = int_list(m.at("hidden"));  // mlp, cnn
  if (m.contains("conv_channels")) s.model.conv_channels = int_list(m.at("conv_channels"));
  if (m.contains("cost_as") && !m.at("cost_as").is_null()) s.model.cost_as = m.at("cost_as").get<std::string>();
  const json& t = r.at("training");
  s.training.compute = t.at("compute").get<std::string>();
  s.training.mode = t.at("mode").get<std::string>();
  s.training.batch_size = t.at("batch_size").get<int64_t>();
  s.training.lr = t.at("lr").get<double>();
  s.training.momentum = t.at("momentum").get<double>();
  s.training.weight_decay = t.at("weight_decay").get<double>();
  if (t.contains("staleness_lr")) {  // async, local-sgd
    s.training.staleness_lr = t.at("staleness_lr").get<std::string>();
    const json& bound = t.at("max_staleness");
    if (!bound.is_null()) s.training.max_staleness = bound.get<int64_t>();
    s.training.staleness_policy = t.at("staleness_policy").get<std::string>();
    s.training.buffer_size = t.at("buffer_size").get<int64_t>();
    s.training.staleness_history = t.at("staleness_history").get<int64_t>();
    s.training.start_jitter_s = t.at("start_jitter_s").get<double>();
  }
  if (s.training.mode == "scadles") {
    s.training.window_s = t.at("window_s").get<double>();
    s.training.batch_min = t.at("batch_min").get<int64_t>();
    s.training.batch_max = t.at("batch_max").get<int64_t>();
    const json& base = t.at("base_global_batch");
    s.training.base_global_batch = base.is_null() ? 0 : base.get<int64_t>();
    s.training.weighting = t.at("weighting").get<std::string>();
    s.training.lr_scaling = t.at("lr_scaling").get<std::string>();
    const json& inj = t.at("injection");
    if (!inj.is_null())
      s.training.injection = InjectionSpec{inj.at("alpha").get<double>(), inj.at("beta").get<double>()};
  }
  if (t.contains("local_steps")) {  // local-sgd
    s.training.local_steps = t.at("local_steps").get<int64_t>();
    s.training.aggregation = t.at("aggregation").get<std::string>();
    s.training.server_lr = t.at("server_lr").get<double>();
  }
  if (t.contains("round_timeout_s")) s.training.round_timeout_s = optional_number(t.at("round_timeout_s"));
  if (t.contains("selection") && !t.at("selection").is_null()) {
    const json& sel = t.at("selection");
    s.training.selection.kind = sel.at("kind").get<std::string>();
    if (sel.contains("per_round") && !sel.at("per_round").is_null())
      s.training.selection.per_round = sel.at("per_round").get<int64_t>();
    if (sel.contains("fraction") && !sel.at("fraction").is_null())
      s.training.selection.fraction = sel.at("fraction").get<double>();
    if (sel.contains("over_selection")) s.training.selection.over_selection = sel.at("over_selection").get<double>();
    if (sel.contains("exploration")) {  // oort
      s.training.selection.exploration = sel.at("exploration").get<double>();
      s.training.selection.alpha = sel.at("alpha").get<double>();
      s.training.selection.preferred_round_s = optional_number(sel.at("preferred_round_s"));
    }
  }
  const json& e = r.at("eval");
  s.eval.every_s = e.at("every_s").get<double>();
  s.eval.test_samples = e.at("test_samples").get<int64_t>();
  const json& st = r.at("stop");
  if (!st.at("rounds").is_null()) s.stop.rounds = st.at("rounds").get<int64_t>();
  if (!st.at("sim_time_s").is_null()) s.stop.sim_time_s = st.at("sim_time_s").get<double>();
  if (!st.at("target_accuracy").is_null()) s.stop.target_accuracy = st.at("target_accuracy").get<double>();
  s.report.buffer_every_s = r.at("report").at("buffer_every_s").get<double>();
  s.compression = compression_spec(r.at("compression"));
  if (!r.at("faults").is_null()) s.faults = faults_spec(r.at("faults"));
  s.topology = topology_spec(r.at("topology"), s.devices);
  s.resolved = r;
  return s;
}

// One device's stream in words, from its resolved object.
std::string stream_text(const json& st) {
  std::string out = st.at("trace").is_null() ? "rate " + rate_text(st.at("rate")) + " samples/s"
                                             : "rate from trace " + st.at("trace").get<std::string>();
  out += ", " + st.at("arrivals").get<std::string>() + " arrivals";
  const json& b = st.at("buffer");
  const std::string policy = b.at("policy").get<std::string>();
  out += ", buffer " + policy;
  if (b.contains("capacity_samples"))
    out += " (" + std::to_string(b.at("capacity_samples").get<int64_t>()) + " samples)";
  if (policy == "truncation") out += " (window " + text::format_number(b.at("window_s").get<double>()) + " s)";
  if (!st.at("sample_bytes").is_null())
    out += ", " + std::to_string(st.at("sample_bytes").get<int64_t>()) + " B per sample";
  if (st.at("while_off") == "lose") out += ", arrivals lost while off";
  return out;
}

std::string list_text(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace

void apply_override(json& doc, const std::string& override_text) {
  // A huge override must not make a huge message.
  constexpr size_t kShown = 80;
  const std::string shown =
      "--set " + (override_text.size() > kShown ? override_text.substr(0, kShown - 3) + "..." : override_text);
  const size_t eq = override_text.find('=');
  if (eq == std::string::npos || eq == 0) fail_override(shown, "expected key.path=value (for example training.lr=0.1)");
  const std::string key = override_text.substr(0, eq);
  const std::string value_text = override_text.substr(eq + 1);
  const std::vector<std::string> segments = text::split(key, '.');
  for (const auto& seg : segments) {
    if (seg.empty()) fail_override(shown, "empty name in key path \"" + key + "\"");
  }

  // Walk the schema and the document together, creating what is missing on the way.
  std::string section;                // schema section the walk is in ("" = top level)
  std::string at;                     // JSON path so far, for messages
  const KeySpec* leaf = nullptr;      // the declared key reached, if any
  const KeySpec* entry_of = nullptr;  // set while the node is an entry of this EntryList
  bool element = false;               // the node is an element of an IntList
  bool free_form = false;             // inside the platform's object form: any keys
  json* node = &doc;
  std::string typed;  // the key path as typed, up to the current segment ("faults.devices.0")
  for (const auto& seg : segments) {
    const std::string typed_at = typed;
    typed += (typed.empty() ? "" : ".") + seg;
    if (leaf && (leaf->type == ValueType::Platform || free_form)) {
      // Into the platform's object form: what-ifs and fleet keys are checked against the platform
      // itself when the document is resolved. A plain path becomes {"file": path}.
      if (!free_form && node->is_string()) *node = json{{"file", *node}};
      if (node->is_array() && all_digits(seg)) {
        const size_t index = seg.size() > 9 ? node->size() + 1 : std::stoul(seg);
        if (index > node->size())
          fail_override(
              shown, "index " + seg + " is out of range (" + at + " has " + std::to_string(node->size()) + " entries)");
        if (index == node->size()) node->push_back(nullptr);
        node = &(*node)[index];
        at += "[" + seg + "]";
      } else {
        if (node->is_null()) *node = json::object();
        if (!node->is_object()) fail_override(shown, at + " is " + text::show(*node) + ", not an object");
        node = &(*node)[seg];
        at += "." + seg;
      }
      free_form = true;
      continue;
    }
    if (all_digits(seg)) {
      if (leaf && element && leaf->type == ValueType::Rate) {
        fail_override(shown, "set " + at + " as a whole, e.g. " + at + "=[10, 20]");
      }
      if (leaf && leaf->type == ValueType::IntervalList) {
        fail_override(shown, "set " + typed_at + " as a whole, e.g. " + typed_at + "=[[60, 120], [300, 330]]");
      }
      const bool list = leaf && !element && (leaf->type == ValueType::IntList || leaf->type == ValueType::EntryList);
      if (!list) fail_override(shown, at.empty() ? "a key path cannot start with a list index" : at + " is not a list");
      if (seg.size() > 9) fail_override(shown, "index " + seg + " is out of range");
      const size_t index = std::stoul(seg);
      if (node->is_null()) *node = json::array();
      if (!node->is_array()) fail_override(shown, at + " is " + text::show(*node) + ", not a list");
      if (index > node->size()) {
        fail_override(shown, "index " + seg + " is out of range (" + at + " has " + std::to_string(node->size()) +
                                 " entries; index " + std::to_string(node->size()) + " appends)");
      }
      if (index == node->size()) node->push_back(nullptr);
      node = &(*node)[index];
      at += "[" + seg + "]";
      if (leaf->type == ValueType::IntList) {
        element = true;
      } else {
        entry_of = leaf;
        section = leaf->path + "[]";
        leaf = nullptr;
      }
      continue;
    }
    if (leaf && !element && leaf->type == ValueType::EntryList && leaf->host_selector && !all_digits(seg) &&
        !node->is_array()) {
      // A device selector's field: --set devices.class=pi4.
      if (!node->is_object()) *node = json::object();
      node = &(*node)[seg];
      at += "." + seg;
      element = true;
      continue;
    }
    if (leaf && !element && leaf->type == ValueType::Rate) {
      // Into a rate object: --set stream.rate.mean=40.
      check_rate_key(at, seg);
      if (node->is_null()) *node = json::object();
      if (!node->is_object()) fail_override(shown, at + " is " + text::show(*node) + ", not an object");
      node = &(*node)[seg];
      at += "." + seg;
      element = true;
      continue;
    }
    if (leaf || element) {
      const std::string where = at + "." + seg;
      if (leaf && leaf->type == ValueType::EntryList) {
        throw ScenarioError(where + ": unknown key (" + at + " is a list: index it, e.g. " + at + ".0." + seg + ")");
      }
      if (leaf && leaf->type == ValueType::IntervalList) {
        throw ScenarioError(where + ": unknown key (" + at + " is a list of intervals: set it as a whole, e.g. " +
                            typed_at + "=[[60, 120]])");
      }
      if (leaf && !element && leaf->type == ValueType::IntList) {
        throw ScenarioError(where + ": unknown key (" + at + " is a list: index it, e.g. " + at + ".0)");
      }
      throw ScenarioError(where + ": unknown key (" + at + " is a single value, with no keys inside)");
    }
    const std::string full = section.empty() ? seg : section + "." + seg;
    const KeySpec* k = find_key(full);
    if (!k && !is_section(full)) throw ScenarioError(unknown_key_message(section, at, seg));
    // A device written as "pi-1" becomes {"host": "pi-1"} before one of its keys is set.
    if (entry_of && !entry_of->shorthand.empty() && node->is_string()) *node = json{{entry_of->shorthand, *node}};
    if (node->is_null()) *node = json::object();
    if (!node->is_object())
      fail_override(shown,
                    (at.empty() ? std::string("the scenario") : at) + " is " + text::show(*node) + ", not an object");
    node = &(*node)[seg];
    at = at.empty() ? seg : at + "." + seg;
    if (k && k->type != ValueType::Section)
      leaf = k;
    else
      section = full;
    entry_of = nullptr;
  }

  // The value: JSON if it parses, else the plain text; keys that hold text always get the text,
  // so --set name=2024 names the run "2024" instead of failing on a number.
  json value;
  bool is_json = true;
  if (const auto issue = find_json_text_issue(value_text, /*comments=*/false)) {
    // Depth and duplicate keys are refused, not read as a plain string: the value was meant as JSON.
    fail_override(shown, issue_text(*issue, [](const TextPosition& p) {
                    return "column " + std::to_string(p.column) + " of the value";
                  }));
  }
  try {
    value = json::parse(value_text);
  } catch (const json::exception&) {
    is_json = false;
  }
  const bool text_key =
      leaf && !element &&
      (leaf->type == ValueType::String || leaf->type == ValueType::Enum || leaf->type == ValueType::Path);
  const bool whole_entry = entry_of != nullptr;                    // e.g. devices.0=pi-3
  const bool null_ok = value.is_null() && leaf && leaf->nullable;  // --set stream.trace=null
  if (!is_json || (text_key && !value.is_string() && !null_ok) ||
      (whole_entry && !value.is_string() && !value.is_object())) {
    value = value_text;
    try {
      (void)value.dump();
    } catch (const json::exception&) {
      fail_override(shown, "the value is not valid UTF-8");
    }
  }
  *node = std::move(value);
}

Scenario parse_scenario(json doc, const fs::path& file_for_relative_paths,
                        const std::vector<std::string>& set_overrides, std::optional<uint64_t> seed_override) {
  try {
    ResolveContext ctx;
    fs::path file_abs;
    if (file_for_relative_paths.empty()) {
      ctx.base_dir = fs::current_path();
    } else {
      file_abs = fs::absolute(file_for_relative_paths).lexically_normal();
      ctx.base_dir = file_abs.parent_path();
      ctx.file_stem = file_abs.stem().string();
    }
    if (!doc.is_object()) {
      throw ScenarioError("scenario: expected a JSON object at the top level, got " + text::show(doc));
    }
    check_json_depth(doc, "scenario");
    for (const auto& o : set_overrides) apply_override(doc, o);
    check_json_depth(doc, "scenario (after --set)");
    if (seed_override) doc["seed"] = *seed_override;
    Scenario s = to_typed(resolve_document(doc, ctx));
    ctx.platform->fill(s);
    s.file = file_abs;
    return s;
  } catch (const ScenarioError&) {
    throw;
  } catch (const util::Interrupted&) {  // a signal while generating a fleet: not an error
    throw;
  } catch (const std::exception& e) {
    // A bug or an environment failure (e.g. the current directory vanished): still one line.
    throw ScenarioError("scenario: internal error while reading the scenario: " + std::string(e.what()));
  }
}

uint64_t parse_seed_option(const std::string& text, const std::string& option) {
  json value;
  try {
    value = json::parse(text);
  } catch (const json::exception&) {
    value = text;  // not a number: the check below says so
  }
  const KeySpec* seed = find_key("seed");
  if (!seed) throw ScenarioError(option + ": internal error: the schema has no seed key");
  return check_value(*seed, value, option, ResolveContext{}).get<uint64_t>();
}

Scenario load_scenario(const fs::path& file, const std::vector<std::string>& set_overrides,
                       std::optional<uint64_t> seed_override) {
  const std::string shown = file.string();
  std::string content = util::read_input_as<ScenarioError>(file, util::kScenarioInput);
  if (const auto issue = find_json_text_issue(content, /*comments=*/true)) {
    throw ScenarioError(issue_text(*issue, [&](const TextPosition& p) {
      return shown + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
    }));
  }
  json doc;
  try {
    doc = json::parse(content, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    const auto [line, column] = line_column(content, e.byte);
    throw ScenarioError(shown + ":" + std::to_string(line) + ":" + std::to_string(column) +
                        ": malformed JSON: " + parse_error_detail(e.what()));
  } catch (const json::exception& e) {
    throw ScenarioError(shown + ": malformed JSON: " + std::string(e.what()));
  }
  return parse_scenario(std::move(doc), file, set_overrides, seed_override);
}

std::string describe(const Scenario& s) {
  using text::format_number;
  std::ostringstream out;
  auto line = [&](const char* label, const std::string& value) {
    out << label << std::string(10 - std::strlen(label), ' ') << value << "\n";
  };
  line("scenario", s.name + (s.file.empty() ? "" : " (" + s.file.string() + ")"));
  line("seed", std::to_string(s.seed));
  line("platform", s.platform.string() +
                       (s.platform_generated ? " (fleet description: " + std::to_string(s.platform_info->hosts.size()) +
                                                   " hosts generated)"
                                             : std::string()));
  for (const auto& o : s.platform_overrides) {
    line("what-if", o.key + " = " + (o.value.is_string() ? o.value.get<std::string>() : o.value.dump()) + " (was " +
                        (o.before.is_string() ? o.before.get<std::string>() : o.before.dump()) + ")");
  }
  line("server", s.server);
  const json& devices_resolved = s.resolved.at("devices");
  const bool selected = devices_resolved.is_object();  // a selector: every device has the global stream
  {
    constexpr size_t kShown = 12;  // a fleet of 500 should not fill the screen
    std::string devices = std::to_string(s.devices.size()) +
                          (selected ? " (selector " + text::show(devices_resolved) + ")" : std::string()) + ":";
    for (size_t i = 0; i < s.devices.size() && i < kShown; ++i) {
      const auto& d = s.devices[i];
      devices += (i ? ", " : " ") + d.name + (d.name == d.host ? "" : " (on " + d.host + ")");
    }
    if (s.devices.size() > kShown) devices += ", ... (" + std::to_string(s.devices.size() - kShown) + " more)";
    line("devices", devices);
  }
  const bool timing_only = s.training.timing_only();
  if (timing_only) line("compute", "timing-only (no tensors, no data: steps cost their FLOPs, messages their sizes)");
  {
    const auto& d = s.dataset;
    std::string ds = d.name;
    if (timing_only) {
      ds = (d.name.empty() ? std::string("none") : d.name) +
           ": not read in timing-only mode, sample counts from its known size";
    } else if (d.name == "synthetic") {
      ds += ", " + std::to_string(d.train_samples) + " training samples of shape " + list_text(d.shape) + ", " +
            std::to_string(d.classes) + " classes, noise " + format_number(d.noise);
    } else {
      ds += " from " + d.path.string() + ", " +
            (d.train_samples == 0 ? std::string("all") : std::to_string(d.train_samples)) + " training samples";
    }
    ds += "; partition " + d.partition.kind;
    if (d.partition.kind == "shards")
      ds += " (" + std::to_string(d.partition.labels_per_device) + " labels per device)";
    if (d.partition.kind == "dirichlet") ds += " (alpha " + format_number(d.partition.alpha) + ")";
    line("dataset", ds);
  }
  {
    // Streams: one description when every streaming device has the same settings.
    std::vector<const json*> streams;
    if (selected) {
      if (!s.resolved.at("stream").is_null()) streams.assign(s.devices.size(), &s.resolved.at("stream"));
    } else {
      for (const auto& d : devices_resolved) {
        if (!d.at("stream").is_null()) streams.push_back(&d.at("stream"));
      }
    }
    const size_t n = s.devices.size();
    std::string who = streams.size() == n
                          ? (n == 1 ? std::string("the device") : "all " + std::to_string(n) + " devices")
                          : std::to_string(streams.size()) + " of " + std::to_string(n) + " devices";
    bool same = true;
    for (const json* st : streams) same = same && *st == *streams.front();
    if (streams.empty()) {
      line("stream", "none (static partitions, data always available)");
    } else if (same) {
      line("stream", who + ": " + stream_text(*streams.front()));
    } else {
      line("stream", who + ", settings differ per device (first: " + stream_text(*streams.front()) + ")");
    }
  }
  {
    // A catalogue model in words: "resnet50 (catalogue: 25557032 parameters, 24.54 GFLOPs per training sample)".
    auto catalogued = [](const std::string& name) {
      const learn::CatalogueModel* c = learn::find_model(name);
      return name + " (catalogue: " + std::to_string(c->params) + " parameters, " +
             text::format_number(std::round(c->step_flops_per_sample() / 1e7) / 100) + " GFLOPs per training sample)";
    };
    std::string m;
    if (learn::find_model(s.model.name)) {
      m = catalogued(s.model.name);
    } else {
      m = s.model.name + ", hidden " + (s.model.hidden.empty() ? "default" : list_text(s.model.hidden));
      if (s.model.name == "cnn") m += ", conv channels " + list_text(s.model.conv_channels);
      if (!s.model.cost_as.empty()) m += "; costs charged as " + catalogued(s.model.cost_as);
    }
    line("model", m);
  }
  line("training",
       s.training.mode + ", batch " + std::to_string(s.training.batch_size) + ", lr " + format_number(s.training.lr) +
           ", momentum " + format_number(s.training.momentum) + ", weight decay " +
           format_number(s.training.weight_decay) +
           (s.training.round_timeout_s ? ", round timeout " + format_number(*s.training.round_timeout_s) + " s"
                                       : std::string()));
  const bool on_arrival =
      s.training.mode == "async" || (s.training.mode == "local-sgd" && s.training.aggregation == "async");
  if (!on_arrival) {
    // Sync rounds: who each round asks (per site in hierarchical runs).
    const SelectionSpec& sel = s.training.selection;
    const std::string scope = s.topology.hierarchical() ? " per site" : "";
    std::string who = sel.kind == "all" ? "all (every device, every round)" : sel.kind + ", ";
    if (sel.kind != "all") {
      who += sel.per_round > 0 ? std::to_string(sel.per_round) + " devices per round" + scope
             : sel.fraction > 0 ? format_number(sel.fraction) + " of the devices per round" + scope
                                : "every available device per round" + scope;
      who += " (of " + std::to_string(s.devices.size()) + ")";
      if (sel.over_selection > 0) who += ", over-selection " + format_number(sel.over_selection);
      if (sel.kind == "oort") who += ", exploration " + format_number(sel.exploration) + ", alpha " + format_number(sel.alpha);
    }
    if (!s.topology.gossip()) line("selection", who);
  }
  if (s.training.mode == "scadles") {
    const auto& t = s.training;
    const int64_t base =
        t.base_global_batch > 0 ? t.base_global_batch : t.batch_size * static_cast<int64_t>(s.devices.size());
    std::string sc = "batch per device clip(rate x " + format_number(t.window_s) + " s, " +
                     std::to_string(t.batch_min) + ", " + std::to_string(t.batch_max) + "), base global batch " +
                     std::to_string(base) + (t.base_global_batch > 0 ? "" : " (batch x devices)") + ", weighting " +
                     t.weighting + ", lr scaling " + t.lr_scaling + ", injection ";
    sc += t.injection ? "alpha " + format_number(t.injection->alpha) + " beta " + format_number(t.injection->beta)
                      : std::string("none");
    line("scadles", sc);
  }
  if (s.training.mode == "local-sgd") {
    const auto& t = s.training;
    line("local-sgd", std::to_string(t.local_steps) + " local steps per push, aggregation " + t.aggregation +
                          ", server lr " + format_number(t.server_lr));
  }
  if (s.training.mode == "async" || (s.training.mode == "local-sgd" && s.training.aggregation == "async")) {
    const auto& t = s.training;
    line("async", "staleness lr " + t.staleness_lr + ", max staleness " +
                      (t.max_staleness ? std::to_string(*t.max_staleness) + " (" + t.staleness_policy + ")"
                                       : std::string("none")) +
                      ", history " + std::to_string(t.staleness_history) + " updates, start jitter " +
                      format_number(t.start_jitter_s) + " s, buffer " + std::to_string(t.buffer_size) +
                      (t.buffer_size == 1 ? " push" : " pushes"));
  }
  {
    const json& c = s.resolved.at("compression");
    std::string up = c.is_null() ? std::string("none") : compressor_text(c);
    if (!c.is_null() && c.contains("adaptive") && !c.at("adaptive").is_null()) {
      up += ", adaptive (delta " + format_number(s.compression.adaptive->delta) + ", smoothing " +
            format_number(s.compression.adaptive->smoothing) + ")";
    }
    const std::string down = c.is_null() || c.at("downlink").is_null()
                                 ? std::string("dense model")
                                 : "model deltas, " + compressor_text(c.at("downlink"));
    line("uplink", up);
    line("downlink", down);
    // The topology, and in a hierarchy what each hop carries (uplink and downlink are the devices' hops).
    const TopologySpec& t = s.topology;
    if (t.hierarchical()) {
      constexpr size_t kSitesShown = 8;
      std::string sites;
      for (size_t i = 0; i < t.sites.size() && i < kSitesShown; ++i) {
        const size_t m = t.sites[i].members.size();
        sites += (i ? ", " : "") + t.sites[i].host + " (" + std::to_string(m) + (m == 1 ? " device)" : " devices)");
      }
      if (t.sites.size() > kSitesShown) sites += ", ... (" + std::to_string(t.sites.size() - kSitesShown) + " more)";
      line("topology", "hierarchical, " + std::to_string(t.sites.size()) + " sites: " + sites + "; " +
                           std::to_string(t.site_rounds) + " site round" + (t.site_rounds == 1 ? "" : "s") +
                           " per cloud round, cloud aggregation " + t.cloud_aggregation);
      const json& site = s.resolved.at("topology").at("site_compression");
      line("hops", "device -> site " + up + "; site -> device " + down + "; site -> cloud " +
                       (site.is_null() ? std::string("dense fp32 delta") : compressor_text(site)) +
                       "; cloud -> site dense model (always)");
    } else if (t.gossip()) {
      line("topology", "gossip over a " + t.graph + " graph (no server: each device's peer averages with its "
                       "neighbours; dense models between peers)");
    } else {
      line("topology", "flat (every device to the server)");
    }
  }
  if (s.faults) {
    std::vector<std::string> parts;
    auto intervals = [](const std::vector<OffInterval>& off, const char* what) {
      return std::to_string(off.size()) + " " + what + (off.size() == 1 ? "" : "s");
    };
    for (const auto& d : s.faults->devices) {
      const std::string who = d.device == "*" ? std::string("other devices") : "device " + d.device;
      parts.push_back(
          who + (d.mtbf_s ? " fail (mtbf " + format_number(*d.mtbf_s) + " s, mttr " + format_number(*d.mttr_s) + " s)"
                          : " off " + intervals(d.off, "interval")));
    }
    for (const auto& l : s.faults->links) {
      std::vector<std::string> what;
      if (!l.trace.empty()) what.push_back("bandwidth from " + l.trace.string());
      if (!l.off.empty()) what.push_back("down " + intervals(l.off, "interval"));
      parts.push_back("link " + l.link + (what.empty() ? std::string() : " " + text::join(what, ", ")));
    }
    if (parts.empty()) parts.push_back("no device or link entries");
    line("faults", text::join(parts, "; ") + "; retry after " + format_number(s.faults->retry_s) + " s");
  }
  if (timing_only) {
    line("eval", "none in timing-only mode (nothing is trained)");
  } else {
    line("eval", "every " + format_number(s.eval.every_s) + " s (simulated), " + std::to_string(s.eval.test_samples) +
                     " test samples");
  }
  {
    std::vector<std::string> parts;
    if (s.stop.rounds) parts.push_back("after " + std::to_string(*s.stop.rounds) + " rounds");
    if (s.stop.sim_time_s) parts.push_back("at " + format_number(*s.stop.sim_time_s) + " s simulated");
    if (s.stop.target_accuracy) parts.push_back("at test accuracy " + format_number(*s.stop.target_accuracy));
    line("stop", text::join(parts, ", ") + (parts.size() > 1 ? ", whichever comes first" : ""));
  }
  return out.str();
}

}  // namespace edgetrain::scenario
