// See compression.hpp.
#include "scenario/keys/compression.hpp"

#include <algorithm>

#include "compress/aliases.hpp"
#include "compress/kinds.hpp"
#include "input/text.hpp"
#include "scenario/error.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {

namespace text = input::text;
namespace {

using nlohmann::json;

// index_bits: 32, or "packed" (ceil(log2 n) bits).
bool packed(const json& index_bits) { return index_bits == "packed"; }

// The compressor keys of `section` ("compression"): kind and its settings, each used only by
// the kinds that read it (the kinds table's columns). The downlink copies these rows
// (nested_compressor).
std::vector<KeySpec> compressor_rows(const std::string& section, std::string kind_doc) {
  using compress::Setting;
  const std::string kind = section + ".kind";
  const std::string at = section + ".";
  std::vector<std::string> feedback = compress::kinds_with_feedback_by_default();
  const std::string last_feedback = feedback.back();  // "a, b and c"
  feedback.pop_back();
  const std::string feedback_list =
      feedback.empty() ? last_feedback : text::join(feedback, ", ") + " and " + last_feedback;
  return {
      enum_key(kind, compress::kind_names(), std::move(kind_doc))
          .def("none")
          .fills(&CompressorSpec::kind),
      number_key(at + "ratio",
                 "Fraction of the entries sent: of each tensor, or (topk with scope global) of all tensors "
                 "together.")
          .only_when(when(kind, compress::kinds_reading(Setting::Ratio)))
          .above(0)
          .at_most(1)
          .def(0.01)
          .fills(&CompressorSpec::ratio),
      enum_key(at + "scope", {"layer", "global"},
               "Top-k selection: layer = the largest entries of each tensor; global = the largest of all "
               "tensors together.")
          .only_when(when(kind, compress::kinds_reading(Setting::Scope)))
          .def("layer")
          .fills(&CompressorSpec::scope),
      literal_key(at + "index_bits", {32, "packed"},
                  "Size of each sent index: 32 bits, or packed = ceil(log2 n) bits for a tensor of n entries.")
          .only_when(when(kind, compress::kinds_reading(Setting::IndexBits)))
          .def(32)
          .fills_by(packed, &CompressorSpec::packed_indices),
      boolean_key(at + "error_feedback",
                  "Error feedback: the sender keeps what compression dropped and adds it to its next update. "
                  "Default true for " +
                      feedback_list + ", false otherwise. Not allowed with adacomp-bins, which keeps its own residual.")
          .only_when(when_not(kind, {"none"}))
          .def_if(when(kind, compress::kinds_with_feedback_by_default()), true)
          .def(false)
          .fills(&CompressorSpec::error_feedback),
      number_key(at + "threshold", "Entries with |g| > threshold are sent (value + index).")
          .only_when(when(kind, compress::kinds_reading(Setting::Threshold)))
          .at_least(0)
          .required_if(when(kind, compress::kinds_reading(Setting::Threshold)))
          .fills(&CompressorSpec::threshold),
      integer_key(at + "levels", "QSGD quantisation levels.")
          .only_when(when(kind, compress::kinds_reading(Setting::Levels)))
          .at_least(1)
          .limit(2147483648.0, "a level and its sign are coded in at most 33 bits of the wire format, exact in double")
          .def(16)
          .fills(&CompressorSpec::levels),
      integer_key(at + "rank", "PowerSGD rank (columns of P and Q).")
          .only_when(when(kind, compress::kinds_reading(Setting::Rank)))
          .at_least(1)
          .limit(4096, "P and Q hold rank columns per matrix; the rank used is at most the matrix's smaller side")
          .def(2)
          .fills(&CompressorSpec::rank),
      integer_key(at + "bin_size", "AdaComp-bins bin size, in entries.")
          .only_when(when(kind, compress::kinds_reading(Setting::BinSize)))
          .at_least(1)
          .limit(1e9, "a bin larger than a layer is the whole layer; entry counts are 32-bit on the wire")
          .def(50)
          .fills(&CompressorSpec::bin_size),
      number_key(at + "timing_ratio",
                 "Timing-only mode: the size of each message of a kind whose size depends on the data (threshold, "
                 "adacomp-bins, and topk with `compression.adaptive`), as a fraction of the dense fp32 update "
                 "(4 bytes per parameter); required there. Kinds whose size has a formula do not use it.")
          .only_when(when("training.compute", {"timing-only"}))
          .above(0)
          .at_most(4)
          .null_default("none declared")
          .fills(&CompressorSpec::timing_ratio),
  };
}

// The rows of `to` ("compression.downlink") copied from the compressor rows of `from`
// ("compression"): same types, ranges, defaults and rules, conditions on the copied kind;
// the kind itself is required there.
std::vector<KeySpec> nested_compressor(const std::vector<KeySpec>& from_rows, const std::string& from,
                                       const std::string& to) {
  std::vector<KeySpec> rows = moved_rows(from_rows, from, to);
  for (auto& r : rows) {
    const std::string original = from + r.path.substr(to.size());
    if (original == from + ".kind") {
      r.defaults.clear();
      r.required();
      r.description = "Downlink compressor: the kinds of `" + original + "`.";
    } else {
      r.description = "Downlink `" + original + "`.";
    }
  }
  return rows;
}

std::vector<KeySpec> uplink_rows() {
  return compressor_rows("compression", "Uplink compressor: " + compress::kind_legend() +
                                            ". Also by the names people use, each a kind with the settings it fixes: " +
                                            text::join(compress::alias_legend(), "; ") + ".");
}

// The sections holding a compressor (compression, compression.downlink, topology.site_compression):
// the rows whose `kind` offers the kinds table.
std::vector<std::string> compressor_sections() {
  std::vector<std::string> sections;
  for (const KeySpec& k : schema_keys()) {
    const std::string tail = ".kind";
    if (k.type == ValueType::Enum && k.choices == compress::kind_names() && k.path.size() > tail.size() &&
        k.path.ends_with(tail))
      sections.push_back(k.path.substr(0, k.path.size() - tail.size()));
  }
  return sections;
}

// The object at dotted `path` of `doc`, or nullptr when absent or not an object.
json* object_at(json& doc, const std::string& path) {
  json* node = &doc;
  for (const std::string& part : text::split(path, '.')) {
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
  }
  return node->is_object() ? node : nullptr;
}

// "compression.timing_ratio" when a timing-only run needs it and it is missing: `at` is the
// direction's section, `adaptive` whether ScaDLES's adaptive top-k is on there.
void check_timing_ratio(const nlohmann::json& spec, const std::string& at, bool adaptive) {
  if (spec.is_null() || !spec.contains("timing_ratio") || !spec.at("timing_ratio").is_null()) return;
  const std::string kind = spec.at("kind").get<std::string>();
  std::string why;
  if (compress::kind_named(kind).payload_bytes == nullptr) {  // no size formula in the kinds table
    why = "kind " + kind + " sends as many entries as the gradients make it";
  } else if (adaptive) {
    why = "adaptive top-k sends dense or compressed as the gradients make it";
  } else {
    return;
  }
  throw ScenarioError(at + ".timing_ratio: required with training.compute timing-only (" + why +
                      "): declare the average message size as a fraction of the dense fp32 update, e.g. 0.05");
}

}  // namespace

void expand_compressor_aliases(json& doc) {
  for (const std::string& section : compressor_sections()) {
    json* spec = object_at(doc, section);
    if (spec == nullptr || !spec->contains("kind") || !spec->at("kind").is_string()) continue;
    const std::string name = spec->at("kind").get<std::string>();
    std::optional<compress::Alias> alias;
    try {
      alias = compress::alias_named(name);
    } catch (const compress::ConfigError& e) {
      throw ScenarioError(section + ".kind: " + e.detail());
    }
    if (!alias) {
      const std::vector<std::string> kinds = compress::kind_names();
      if (std::find(kinds.begin(), kinds.end(), name) != kinds.end()) continue;
      std::vector<std::string> names = kinds;
      for (const std::string& a : compress::alias_names()) names.push_back(a);
      std::string message = section + ".kind: must be one of " + text::join(kinds, ", ") + ", or an alias (" +
                            text::join(compress::alias_names(), ", ") + "); got " + text::show(spec->at("kind"));
      if (auto near = text::closest(name, names)) message += " (did you mean \"" + *near + "\"?)";
      throw ScenarioError(message);
    }
    for (const auto& [key, value] : alias->settings) {
      if (spec->contains(key) && !spec->at(key).is_null() && !(spec->at(key).is_number() && spec->at(key) == value))
        throw ScenarioError(section + "." + key + ": kind " + name + " is " + alias->kind + " with " + key + " " +
                            text::format_number(value) + ", got " + text::show(spec->at(key)) + " (give kind " +
                            alias->kind + " to choose " + key + ")");
      (*spec)[key] = value;
    }
    (*spec)["kind"] = alias->kind;
  }
}

std::vector<KeySpec> compressor_copy_rows(const std::string& section) {
  return nested_compressor(uplink_rows(), "compression", section);
}

std::vector<KeySpec> compression_rows() {
  std::vector<KeySpec> rows = {
      section_key("compression",
                  "Gradient compression. Its keys configure the uplink (device -> server: each device's "
                  "gradient every step); `compression.downlink` the other direction.")
          .null_default("no compression: dense fp32 both ways"),
  };
  std::vector<KeySpec> uplink = uplink_rows();
  place_rows(uplink, place(&Scenario::compression, &CompressionSpec::uplink));
  std::vector<KeySpec> tail = {
      section_key("compression.adaptive",
                  "ScaDLES adaptive compression: each step the device computes the norm gap | ||g|| - "
                  "||Top_k(g)|| | / ||g||, smooths it (EWMA with weight `smoothing` on the past), and sends "
                  "top-k compressed when the smoothed gap <= `delta`, dense otherwise.")
          .allowed_only_when(when("compression.kind", {"topk"}))
          .off_when_null("always compressed")
          .fills(&Scenario::compression, &CompressionSpec::adaptive),
      number_key("compression.adaptive.delta", "Largest smoothed norm gap at which the device sends compressed.")
          .at_least(0)
          .def(0.3)
          .fills(&Scenario::compression, &CompressionSpec::adaptive, &AdaptiveSpec::delta),
      number_key("compression.adaptive.smoothing", "EWMA weight of the past in the smoothed norm gap.")
          .at_least(0)
          .below(1)
          .def(0.9)
          .fills(&Scenario::compression, &CompressionSpec::adaptive, &AdaptiveSpec::smoothing),
      section_key("compression.downlink",
                  "Downlink compression (server -> device): the server sends each device the compressed delta "
                  "between the current model and that device's copy. Same keys, defaults and rules as the uplink "
                  "`compression.*` (no `adaptive`).")
          .off_when_null("the dense fp32 model every round")
          .fills(&Scenario::compression, &CompressionSpec::downlink),
  };
  std::vector<KeySpec> downlink = compressor_copy_rows("compression.downlink");
  place_rows(downlink, place(&Scenario::compression, &CompressionSpec::downlink));
  for (const auto& part : {uplink, tail, downlink}) rows.insert(rows.end(), part.begin(), part.end());
  return rows;
}

std::vector<Rule> compression_rules() {
  return {
      {"compression.timing_ratio",
       "Required with `training.compute` timing-only when the message size depends on the data: kind threshold "
       "or adacomp-bins, or topk with `compression.adaptive` (also `compression.downlink.timing_ratio`).",
       [](const nlohmann::json& r) {
         if (r.at("training").at("compute") != "timing-only") return;
         const auto& c = r.at("compression");
         if (c.is_null()) return;
         check_timing_ratio(c, "compression", is_given(c, "adaptive"));
         check_timing_ratio(c.at("downlink"), "compression.downlink", false);
       }},
      {"compression.error_feedback",
       "Must not be true with kind adacomp-bins, which keeps its own residual (also `compression.downlink`).",
       [](const nlohmann::json& r) {
         const auto& c = r.at("compression");
         if (c.is_null()) return;
         const std::pair<std::string, const nlohmann::json*> directions[] = {
             {"compression", &c}, {"compression.downlink", &c.at("downlink")}};
         for (const auto& [at, spec] : directions) {
           if (spec->is_null() || spec->at("kind") != "adacomp-bins") continue;
           if (spec->value("error_feedback", false)) {
             throw ScenarioError(at + ".error_feedback: adacomp-bins keeps its own residual");
           }
         }
       }},
  };
}

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
  const std::string alias = compress::alias_of(kind, [&c](const std::string& key) -> std::optional<double> {
    if (!c.contains(key) || !c.at(key).is_number()) return std::nullopt;
    return c.at(key).get<double>();
  });
  return (alias.empty() ? "" : alias + " = ") + (settings.empty() ? kind : kind + " (" + text::join(settings, ", ") + ")");
}

}  // namespace edgetrain::scenario::keys
