// The human summary of a typed scenario for `edgetrain validate` (load.hpp's describe()).
#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>

#include "input/text.hpp"
#include "learn/catalogue.hpp"
#include "platform/check.hpp"
#include "scenario/keys/compression.hpp"
#include "scenario/keys/topology.hpp"
#include "scenario/load.hpp"
#include "scenario/schema.hpp"

namespace edgetrain::scenario {

namespace text = input::text;
namespace {

using nlohmann::json;

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
  if (s.population) {
    line("slots", std::to_string(s.devices.size()) + " devices as records, on " +
                           std::to_string(s.population->slots()) + " host slots in " +
                           std::to_string(s.population->fleet.sites.size()) + " sites (population.hosts slots)");
  }
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
      devices += (i ? ", " : " ") + d.name + (d.name == d.host || d.host.empty() ? "" : " (on " + d.host + ")");
    }
    if (s.devices.size() > kShown) devices += ", ... (" + std::to_string(s.devices.size() - kShown) + " more)";
    line("devices", devices);
  }
  const bool timing_only = s.training.timing_only();
  if (timing_only) line("compute", "timing-only (no tensors, no data: steps cost their FLOPs, messages their sizes)");
  {
    const auto& d = s.dataset;
    std::string ds = d.name;
    const bool files = d.name == "npz" || d.name == "images" || d.name == "leaf" || d.name == "fedscale";
    const std::string where = (d.name == "npz" ? d.file : d.path).string();
    if (timing_only && files) {
      ds += " from " + where + ": timing-only, only its headers and counts are read";
    } else if (timing_only) {
      ds = (d.name.empty() ? std::string("none") : d.name) +
           ": not read in timing-only mode, sample counts from its known size";
    } else if (d.name == "synthetic") {
      ds += ", " + std::to_string(d.train_samples) + " training samples of shape " + list_text(d.shape) + ", " +
            std::to_string(d.classes) + " classes, noise " + format_number(d.noise);
    } else {
      ds += " from " + where + ", " + (d.train_samples == 0 ? std::string("all") : std::to_string(d.train_samples)) +
            " training samples";
    }
    ds += "; partition " + d.partition.kind;
    if (d.partition.kind == "shards")
      ds += " (" + std::to_string(d.partition.labels_per_device) + " labels per device)";
    if (d.partition.kind == "dirichlet") ds += " (alpha " + format_number(d.partition.alpha) + ")";
    if (d.partition.kind == "natural") {
      ds += " (" + std::to_string(d.partition.users_per_device) + " user(s) per device" +
            (d.partition.shuffle_users ? ", shuffled" : "") + ")";
    }
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
    } else if (s.model.name == "torchscript") {
      m = "torchscript " + s.model.file.string();
    } else {
      m = s.model.name + ", hidden " + (s.model.hidden.empty() ? "default" : list_text(s.model.hidden));
      if (s.model.name == "cnn") {
        m += ", conv channels " + list_text(s.model.conv_channels);
        if (s.model.conv_kernel != 5 || s.model.conv_padding != "valid") {  // the defaults go unsaid
          const std::string k = std::to_string(s.model.conv_kernel);
          m += " (" + k + "x" + k + ", " + s.model.conv_padding + " padding)";
        }
      }
      if (!s.model.cost_as.empty()) m += "; costs charged as " + catalogued(s.model.cost_as);
    }
    line("model", m);
  }
  line("training",
       s.training.mode + ", batch " + std::to_string(s.training.batch_size) + ", lr " + format_number(s.training.lr) +
           ", momentum " + format_number(s.training.momentum) + ", weight decay " +
           format_number(s.training.weight_decay) +
           (s.training.round_timeout_s ? ", round timeout " + format_number(*s.training.round_timeout_s) + " s"
                                       : std::string()) +
           (s.training.deadline == "fedbalancer" ? ", deadline predicted (fedbalancer)" : std::string()));
  if (!s.training.applies_on_arrival()) {
    // Sync rounds: who each round asks (per site where the topology has sites).
    const SelectionSpec& sel = s.training.selection;
    const std::optional<std::string> per = keys::selection_scope(s.topology);  // none: no rounds to select for
    const std::string scope = per.value_or("");
    std::string who = sel.kind == "all" ? "all (every device, every round)" : sel.kind + ", ";
    if (sel.kind != "all") {
      who += sel.per_round > 0  ? std::to_string(sel.per_round) + " devices per round" + scope
             : sel.fraction > 0 ? format_number(sel.fraction) + " of the devices per round" + scope
                                : "every available device per round" + scope;
      who += " (of " + std::to_string(s.devices.size()) + ")";
      if (sel.over_selection > 0) who += ", over-selection " + format_number(sel.over_selection);
      if (sel.kind == "oort")
        who += ", exploration " + format_number(sel.exploration) + ", alpha " + format_number(sel.alpha);
    }
    if (per) line("selection", who);
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
  // The federated algorithms (docs/explanation/strategies.md): each section's kind, then its settings.
  for (const char* section : {"strategy", "defence", "attack"}) {
    const json& v = s.resolved.value(section, json());
    if (v.is_null()) continue;
    std::string words = v.at("kind").get<std::string>();
    std::vector<std::string> settings;
    for (const auto& [key, value] : v.items()) {
      if (key == "kind" || value.is_null()) continue;
      if (key == "devices" && value.is_array()) {
        settings.push_back("devices: the " + std::to_string(value.size()) + " of the selector");
      } else {
        settings.push_back(key + " " + (value.is_string() ? value.get<std::string>() : value.dump()));
      }
    }
    if (!settings.empty()) words += " (" + text::join(settings, ", ") + ")";
    line(section, words);
  }
  if (s.training.applies_on_arrival()) {
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
    std::string up = c.is_null() ? std::string("none") : keys::compressor_text(c);
    if (!c.is_null() && c.contains("adaptive") && !c.at("adaptive").is_null()) {
      up += ", adaptive (delta " + format_number(s.compression.adaptive->delta) + ", smoothing " +
            format_number(s.compression.adaptive->smoothing) + ")";
    }
    const std::string down = c.is_null() || c.at("downlink").is_null()
                                 ? std::string("dense model")
                                 : "model deltas, " + keys::compressor_text(c.at("downlink"));
    line("uplink", up);
    line("downlink", down);
    for (const auto& [label, words] : keys::topology_lines(s, up, down)) line(label.c_str(), words);
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
  if (s.traces) {
    std::vector<std::string> parts;
    if (!s.traces->availability.empty()) parts.push_back("on times from " + s.traces->availability.string());
    if (!s.traces->capacity.empty()) {
      parts.push_back("compute and bandwidth from " + s.traces->capacity.string() + " (ms per sample of " +
                      s.traces->reference_model + ")");
    }
    line("traces", text::join(parts, "; ") + "; assigned by " + s.traces->assign);
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
