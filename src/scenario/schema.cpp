// The scenario schema table and everything generated from it except validation itself
// (validate.cpp): lookups, phrases for messages, and the Markdown documentation.
#include "scenario/schema.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "compress/kinds.hpp"
#include "learn/catalogue.hpp"
#include "platform/bounds.hpp"
#include "scenario/error.hpp"
#include "input/text.hpp"
#include "util/limits.hpp"

namespace edgetrain::scenario {

namespace text = input::text;

KeySpec& KeySpec::def(nlohmann::json v) {
  defaults.push_back({std::nullopt, DefaultRule::Kind::Value, std::move(v), {}});
  return *this;
}
KeySpec& KeySpec::def_if(Condition when, nlohmann::json v) {
  defaults.push_back({std::move(when), DefaultRule::Kind::Value, std::move(v), {}});
  return *this;
}
KeySpec& KeySpec::required() {
  defaults.push_back({std::nullopt, DefaultRule::Kind::Required, nullptr, {}});
  return *this;
}
KeySpec& KeySpec::required_if(Condition when) {
  defaults.push_back({std::move(when), DefaultRule::Kind::Required, nullptr, {}});
  return *this;
}
KeySpec& KeySpec::no_limit() { return null_default("no limit"); }
KeySpec& KeySpec::null_default(std::string means) {
  or_null(std::move(means));
  defaults.push_back({std::nullopt, DefaultRule::Kind::Null, nullptr, {}});
  return *this;
}
KeySpec& KeySpec::or_null(std::string means) {
  nullable = true;
  null_means = std::move(means);
  return *this;
}
KeySpec& KeySpec::required_unless(std::string sibling_key) {
  defaults.push_back({std::nullopt, DefaultRule::Kind::RequiredUnless, nullptr, std::move(sibling_key)});
  return *this;
}
KeySpec& KeySpec::takes_precedence_over(std::string sibling_key) {
  overrides = std::move(sibling_key);
  return *this;
}
KeySpec& KeySpec::whole_number() {
  whole = true;
  return *this;
}
KeySpec& KeySpec::default_file_stem() {
  defaults.push_back({std::nullopt, DefaultRule::Kind::FileStem, nullptr, {}});
  return *this;
}
KeySpec& KeySpec::same_as(std::string sibling_key) {
  defaults.push_back({std::nullopt, DefaultRule::Kind::SameAs, nullptr, std::move(sibling_key)});
  return *this;
}
KeySpec& KeySpec::only_when(Condition when) {
  applies_when = std::move(when);
  return *this;
}
KeySpec& KeySpec::allowed_only_when(Condition when) {
  applies_when = std::move(when);
  error_unless_applies = true;
  return *this;
}
KeySpec& KeySpec::must_exist_only_when(Condition when) {
  exists_when = std::move(when);
  return *this;
}
KeySpec& KeySpec::at_least(double lo) {
  range.lo = lo;
  range.lo_open = false;
  return *this;
}
KeySpec& KeySpec::above(double lo) {
  range.lo = lo;
  range.lo_open = true;
  return *this;
}
KeySpec& KeySpec::at_most(double hi) {
  range.hi = hi;
  range.hi_open = false;
  return *this;
}
KeySpec& KeySpec::below(double hi) {
  range.hi = hi;
  range.hi_open = true;
  return *this;
}
KeySpec& KeySpec::size(size_t n) {
  list_size = n;
  return *this;
}
KeySpec& KeySpec::wide() {
  wide_unsigned = true;
  return *this;
}
KeySpec& KeySpec::empty_allowed() {
  may_be_empty = true;
  return *this;
}
KeySpec& KeySpec::limit(double hi, std::string why) {
  max = hi;
  max_why = std::move(why);
  return *this;
}
KeySpec& KeySpec::entries_limit(size_t n, std::string why) {
  max_entries = n;
  max_entries_why = std::move(why);
  return *this;
}
KeySpec& KeySpec::names(NameRule rule) {
  name_rule = rule;
  return *this;
}
KeySpec& KeySpec::part_of(std::string type_words) {
  part_of_value = true;
  type_doc = std::move(type_words);
  return *this;
}
KeySpec& KeySpec::selects_hosts() {
  host_selector = true;
  return *this;
}

namespace {

KeySpec row(std::string path, ValueType type, std::string description) {
  KeySpec k;
  k.path = std::move(path);
  k.type = type;
  k.description = std::move(description);
  return k;
}
KeySpec string_key(std::string path, std::string d) { return row(std::move(path), ValueType::String, std::move(d)); }
KeySpec integer_key(std::string path, std::string d) { return row(std::move(path), ValueType::Integer, std::move(d)); }
KeySpec number_key(std::string path, std::string d) { return row(std::move(path), ValueType::Number, std::move(d)); }
KeySpec int_list_key(std::string path, std::string d) { return row(std::move(path), ValueType::IntList, std::move(d)); }
KeySpec enum_key(std::string path, std::vector<std::string> choices, std::string d) {
  KeySpec k = row(std::move(path), ValueType::Enum, std::move(d));
  k.choices = std::move(choices);
  return k;
}
KeySpec quantity_key(std::string path, Unit unit, std::string d) {
  KeySpec k = row(std::move(path), ValueType::Quantity, std::move(d));
  k.unit = unit;
  return k;
}
KeySpec path_key(std::string path, PathKind kind, std::string d) {
  KeySpec k = row(std::move(path), ValueType::Path, std::move(d));
  k.path_kind = kind;
  return k;
}
KeySpec entry_list_key(std::string path, std::string shorthand, std::string entry_doc, std::string d) {
  KeySpec k = row(std::move(path), ValueType::EntryList, std::move(d));
  k.shorthand = std::move(shorthand);
  k.entry_doc = std::move(entry_doc);
  return k;
}
KeySpec section_key(std::string path, std::string d) { return row(std::move(path), ValueType::Section, std::move(d)); }
KeySpec boolean_key(std::string path, std::string d) { return row(std::move(path), ValueType::Boolean, std::move(d)); }
KeySpec literal_key(std::string path, std::vector<nlohmann::json> literals, std::string d) {
  KeySpec k = row(std::move(path), ValueType::Literal, std::move(d));
  k.literals = std::move(literals);
  return k;
}
KeySpec rate_key(std::string path, std::string d) { return row(std::move(path), ValueType::Rate, std::move(d)); }
KeySpec interval_list_key(std::string path, std::string d) {
  return row(std::move(path), ValueType::IntervalList, std::move(d));
}
Condition when(std::string key, std::vector<std::string> values) {
  Condition c;
  c.key = std::move(key);
  c.values = std::move(values);
  return c;
}
Condition when_not(std::string key, std::vector<std::string> values) {
  Condition c = when(std::move(key), std::move(values));
  c.negated = true;
  return c;
}

// Why each size has its upper limit (the README's "Bad input" section quotes these). The limits
// keep every product of sizes (samples x values x bytes, widths x widths) far within int64 and
// every allocation they lead to sane; what fits this machine's memory is checked per run.
constexpr const char* kWhyBatch = "a batch is held in memory at once; far beyond edge training batches";
constexpr const char* kWhySamples = "sample counts and indices stay far within int64; the dataset is held in memory";
constexpr const char* kWhyWidth = "one 65536 x 65536 layer is already 16 GiB of fp32 weights";
constexpr int64_t kMaxSampleValues = int64_t{1} << 24;  // dataset.shape's product
constexpr const char* kWhyCount = "a count no run reaches; stays exact in the double arithmetic of rates and means";

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
      enum_key(kind, compress::kind_names(), std::move(kind_doc)).def("none"),
      number_key(at + "ratio",
                 "Fraction of the entries sent: of each tensor, or (topk with scope global) of all tensors "
                 "together.")
          .only_when(when(kind, compress::kinds_reading(Setting::Ratio)))
          .above(0)
          .at_most(1)
          .def(0.01),
      enum_key(at + "scope", {"layer", "global"},
               "Top-k selection: layer = the largest entries of each tensor; global = the largest of all "
               "tensors together.")
          .only_when(when(kind, compress::kinds_reading(Setting::Scope)))
          .def("layer"),
      literal_key(at + "index_bits", {32, "packed"},
                  "Size of each sent index: 32 bits, or packed = ceil(log2 n) bits for a tensor of n entries.")
          .only_when(when(kind, compress::kinds_reading(Setting::IndexBits)))
          .def(32),
      boolean_key(at + "error_feedback",
                  "Error feedback: the sender keeps what compression dropped and adds it to its next update. "
                  "Default true for " +
                      feedback_list + ", false otherwise. Not allowed with adacomp-bins, which keeps its own residual.")
          .only_when(when_not(kind, {"none"}))
          .def_if(when(kind, compress::kinds_with_feedback_by_default()), true)
          .def(false),
      number_key(at + "threshold", "Entries with |g| > threshold are sent (value + index).")
          .only_when(when(kind, compress::kinds_reading(Setting::Threshold)))
          .at_least(0)
          .required_if(when(kind, compress::kinds_reading(Setting::Threshold))),
      integer_key(at + "levels", "QSGD quantisation levels.")
          .only_when(when(kind, compress::kinds_reading(Setting::Levels)))
          .at_least(1)
          .limit(2147483648.0, "a level and its sign are coded in at most 33 bits of the wire format, exact in double")
          .def(16),
      integer_key(at + "rank", "PowerSGD rank (columns of P and Q).")
          .only_when(when(kind, compress::kinds_reading(Setting::Rank)))
          .at_least(1)
          .limit(4096, "P and Q hold rank columns per matrix; the rank used is at most the matrix's smaller side")
          .def(2),
      integer_key(at + "bin_size", "AdaComp-bins bin size, in entries.")
          .only_when(when(kind, compress::kinds_reading(Setting::BinSize)))
          .at_least(1)
          .limit(1e9, "a bin larger than a layer is the whole layer; entry counts are 32-bit on the wire")
          .def(50),
      number_key(at + "timing_ratio",
                 "Timing-only mode: the size of each message of a kind whose size depends on the data (threshold, "
                 "adacomp-bins, and topk with `compression.adaptive`), as a fraction of the dense fp32 update "
                 "(4 bytes per parameter); required there. Kinds whose size has a formula do not use it.")
          .only_when(when("training.compute", {"timing-only"}))
          .above(0)
          .at_most(4)
          .null_default("none declared"),
  };
}

// Copies of the rows of `table` at or below `from` ("compression", "stream") moved to `to`
// ("compression.downlink", "devices[].stream"): same types, ranges and defaults, conditions on
// keys at or below `from` moved along. Callers adjust descriptions and defaults.
std::vector<KeySpec> moved_rows(const std::vector<KeySpec>& table, const std::string& from, const std::string& to) {
  auto inside = [&](const std::string& key) { return key == from || key.rfind(from + ".", 0) == 0; };
  auto moved = [&](std::optional<Condition> c) {
    if (c && inside(c->key)) c->key = to + c->key.substr(from.size());
    return c;
  };
  std::vector<KeySpec> rows;
  for (const auto& k : table) {
    if (!inside(k.path)) continue;
    KeySpec r = k;
    r.path = to + k.path.substr(from.size());
    r.applies_when = moved(k.applies_when);
    for (auto& d : r.defaults) d.when = moved(d.when);
    rows.push_back(std::move(r));
  }
  return rows;
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

// The rows "<entry>.<path>" that override, per list entry, the rows of the global section
// `section` (the section row itself included): same type, range and defaults, conditions
// moved into the entry; `section_doc` describes the entry's section row.
std::vector<KeySpec> per_entry_overrides(const std::vector<KeySpec>& table, const std::string& section,
                                         const std::string& entry, std::string section_doc, std::string null_means) {
  std::vector<KeySpec> rows = moved_rows(table, section, entry + "." + section);
  for (auto& r : rows) {
    r.inherits = r.path.substr(entry.size() + 1);
    if (r.inherits == section) {
      r.description = section_doc;
      r.null_means = null_means;
    } else {
      r.description = "This device's `" + r.inherits + "`.";
    }
  }
  return rows;
}

std::vector<KeySpec> build_table() {
  using nlohmann::json;
  const Condition synthetic = when("dataset.name", {"synthetic"});
  const Condition scadles = when("training.mode", {"scadles"});
  const Condition bounded = when("stream.buffer.policy", {"drop-oldest", "drop-newest"});
  const Condition local_sgd = when("training.mode", {"local-sgd"});
  // Pushes applied on arrival: mode async, and local-sgd (its aggregation async; a Condition
  // looks at one key, so the descriptions say so).
  const Condition async_pushes = when("training.mode", {"async", "local-sgd"});
  std::vector<KeySpec> head = {
      string_key("name", "Run name; names the results folder (`results/<name>`).")
          .names(NameRule::Run)
          .default_file_stem(),
      integer_key("seed", "Seed from which every random stream of the run derives.").at_least(0).wide().def(1),
      row("platform", ValueType::Platform,
          "SimGrid platform: an XML file (hosts, links, routes), or a fleet description (JSON, see \"Fleet "
          "platforms\") from which the run generates one with the scenario's `seed` (unless the description sets "
          "its own). The object form also changes values of the platform (what-ifs, see \"Platform what-ifs\"): "
          "`{\"file\": ..., \"links\": {...}, \"hosts\": {...}}`, and for a fleet description any of its keys "
          "(`platform.classes.pi4.count`), merged over the file's before generation. A plain string means "
          "`{\"file\": string}`.")
          .required(),
      path_key("platform.file", PathKind::File, "The platform file: SimGrid XML or a fleet description (JSON).")
          .part_of()
          .required(),
      quantity_key("platform.links.<link>.bandwidth", Unit::BitsPerSecond,
                   "What-if: the bandwidth of the platform's `<link>` or `<backbone>` named `<link>`. A SPLITDUPLEX "
                   "link named without `_UP`/`_DOWN` changes both directions, `<link>_UP` or `<link>_DOWN` one.")
          .part_of()
          .at_least(platform::kMinBandwidthBps)
          .limit(platform::kMaxBandwidthBps, "a petabit per second; the platform file has the same bounds")
          .null_default("the platform file's value"),
      quantity_key("platform.links.<link>.latency", Unit::Seconds, "What-if: that link's latency.")
          .part_of()
          .at_least(0)
          .null_default("the platform file's value"),
      quantity_key("platform.hosts.<host>.speed", Unit::Flops,
                   "What-if: the speed per core (flop/s) of the platform's `<host>` named `<host>`.")
          .part_of("speed (f per second)")
          .at_least(platform::kMinSpeedFlops)
          .limit(platform::kMaxSpeedFlops, "a petaflop per core; the platform file has the same bounds")
          .null_default("the platform file's value"),
      integer_key("platform.hosts.<host>.cores", "What-if: that host's core count.")
          .part_of()
          .at_least(1)
          .limit(1e6, "far beyond any host's cores; SimGrid counts cores in an int")
          .null_default("the platform file's value"),
      string_key("server",
                 "Platform host of the aggregator (parameter server); with `topology.kind` gossip only the host of the "
                 "observer (no traffic).")
          .required(),

      section_key("stream",
                  "Data streams: samples arrive at each device over simulated time into a buffer, and "
                  "training takes them from there. Each device can override these keys (`devices[].stream`).")
          .null_default("no streams: static partitions, data always available"),
      path_key("stream.trace", PathKind::File,
               "CSV file of `time_s,rate` rows (header allowed): the rate over time, piecewise constant, "
               "the last rate holding after the last time. Takes precedence over `stream.rate`.")
          .takes_precedence_over("rate")
          .null_default("no trace"),
      rate_key("stream.rate",
               "Arrival rate in samples per simulated second, drawn once per device (seeded): a number > 0 "
               "(constant), a preset name, or an object: `{\"dist\": \"constant\", \"value\": v}` (v > 0); "
               "`{\"dist\": \"uniform\", \"mean\": m, \"spread\": s}`, uniform on [m - s, m + s] "
               "(m > 0, 0 <= s < m); `{\"dist\": \"normal\", \"mean\": m, \"std\": s}` (m > 0, s >= 0); "
               "`{\"dist\": \"list\", \"values\": [...]}`, numbers > 0, device i gets values[i mod n]. Every rate "
               "and parameter is at most 1e9 samples/s (sample counts over a run stay within int64), and a draw is "
               "clipped to [1, 1e9].")
          .or_null("none: `stream.trace` gives the rate")
          .required_unless("trace"),
      enum_key("stream.arrivals", {"fluid", "poisson"},
               "Arrival process: fluid = samples arrive evenly at exactly the rate; poisson = a (seeded) "
               "Poisson process with that rate.")
          .def("fluid"),
      enum_key("stream.buffer.policy", {"persistence", "truncation", "drop-oldest", "drop-newest"},
               "What the device's buffer keeps: persistence = every sample until trained (unbounded); "
               "truncation = at each step only the newest `stream.buffer.window_s` worth; drop-oldest = at "
               "most `capacity_samples`, evicting the oldest; drop-newest = at most `capacity_samples`, "
               "refusing arrivals that do not fit.")
          .def("persistence"),
      integer_key("stream.buffer.capacity_samples", "Buffer bound in samples (drop policies).")
          .only_when(bounded)
          .at_least(1)
          .limit(1e10, "sample counts times sample_bytes (at most 64 MiB) stay within int64")
          .required_if(bounded),
      quantity_key("stream.buffer.window_s", Unit::Seconds,
                   "Truncation window: the buffer keeps the newest ceil(rate x window_s) samples, at least one "
                   "batch.")
          .above(0)
          .def(1.0),
      quantity_key("stream.sample_bytes", Unit::Bytes, "Size of one streamed sample.")
          .at_least(1)
          .limit(67108864.0, "the largest sample dataset.shape allows, 2^24 fp32 values")
          .whole_number()
          .null_default("the dataset's sample size"),
      enum_key("stream.while_off", {"buffer", "lose"},
               "What arrives while the device is off (`faults.devices`): buffer = kept as usual; lose = lost, "
               "counted in samples_lost_offline.")
          .def("buffer"),

      entry_list_key("devices", "host", "a host name or an object {\"host\": ..., \"name\": ...}",
                     "Edge devices, one per entry: a host name, or an object with the keys below. Or a selector "
                     "object (keys `devices.<key>` below, combined with AND) naming hosts of the platform, one device "
                     "per host in platform file order, named after its host (see \"Naming devices\").")
          .selects_hosts()
          .required(),
      string_key("devices.hosts",
                 "Selector: host names matching this glob (`*`, `?`, `[...]`), or any glob of a list. `\"*\"` is "
                 "every host except the server and hosts whose `role` property is not `device` (aggregators).")
          .part_of("glob or list of globs")
          .null_default("any host"),
      string_key("devices.class", "Selector: hosts whose `class` property (written by the fleet generator) matches.")
          .part_of("glob or list of globs")
          .null_default("any class"),
      string_key("devices.site", "Selector: hosts whose `site` property matches.")
          .part_of("glob or list of globs")
          .null_default("any site"),
      string_key("devices.role",
                 "Selector: hosts whose `role` property matches; without it, hosts with a `role` other than "
                 "`device` are left out.")
          .part_of("glob or list of globs")
          .null_default("`device` or none"),
      string_key("devices.exclude", "Selector: hosts whose name matches are left out.")
          .part_of("glob or list of globs")
          .null_default("none"),
      integer_key("devices.matched",
                  "Selector: how many hosts it matches. The resolved `scenario.json` writes it; given, the selector "
                  "must match exactly that many.")
          .part_of()
          .at_least(1)
          .limit(1e7, "more devices than a run simulates")
          .null_default("not checked"),
      string_key("devices[].host", "Platform host the device runs on.").required(),
      string_key("devices[].name", "Unique device name (several devices may share a host); written to the CSV files.")
          .names(NameRule::Device)
          .same_as("host"),
  };
  const auto device_streams = per_entry_overrides(
      head, "stream", "devices[]",
      "This device's stream settings: each key given here overrides the global `stream` one for this device, "
      "the others are inherited. Without a global `stream`, only devices with their own `stream` stream (and "
      "need their own `rate` or `trace`). An own `rate` without an own `trace` drops an inherited `trace`.",
      "this device has no stream");
  head.insert(head.end(), device_streams.begin(), device_streams.end());

  const Condition real = when("training.compute", {"real"});
  const Condition small_model = when("model.name", {"mlp", "cnn"});
  std::vector<std::string> model_names{"mlp", "cnn"}, catalogue_names;
  for (std::string_view name : learn::catalogue_names()) catalogue_names.emplace_back(name);
  model_names.insert(model_names.end(), catalogue_names.begin(), catalogue_names.end());
  std::vector<KeySpec> tail = {
      enum_key("training.compute", {"real", "timing-only"},
               "real = every step trains the model with LibTorch on the data set; timing-only = no tensors and no "
               "data: steps cost their FLOPs and messages the sizes the compressor would produce, so large fleets "
               "and catalogue models (`model.name`) can be planned. `dataset` and `eval` are then optional and "
               "unused, and `stop.target_accuracy` is refused (no accuracy is measured).")
          .def("real"),
      enum_key("dataset.name", {"fashion-mnist", "mnist", "synthetic"},
               "Training data: IDX files (fashion-mnist, mnist) or generated class clusters. Timing-only runs "
               "read nothing: they take the data set's known size (fashion-mnist and mnist: 60000 training and "
               "10000 test samples of 1x28x28, 10 classes; synthetic: its keys); without one, the sizes of the "
               "catalogue model's reference data set, else fashion-mnist's.")
          .required_if(real)
          .null_default("no data set (timing-only runs only)"),
      path_key("dataset.path", PathKind::Directory, "Folder holding the IDX files (gzipped or not).")
          .must_exist_only_when(real)
          .only_when(when("dataset.name", {"fashion-mnist", "mnist"}))
          .def_if(when("dataset.name", {"fashion-mnist"}), "/usr/share/datasets/fashion-mnist")
          .required_if(when("dataset.name", {"mnist"})),
      integer_key("dataset.train_samples", "Training samples to use; 0 = the whole training set.")
          .at_least(0)
          .limit(1e8, kWhySamples)
          .def_if(synthetic, 2000)
          .def(0),
      int_list_key("dataset.shape", "Sample shape [channels, height, width].")
          .only_when(synthetic)
          .size(3)
          .at_least(1)
          .limit(65536, "and their product at most 2^24 (64 MiB of fp32 per sample)")
          .def(json::array({1, 28, 28})),
      integer_key("dataset.classes", "Number of classes.").only_when(synthetic).at_least(2).at_most(1000).def(10),
      number_key("dataset.noise", "Spread of each class cluster around its centre.")
          .only_when(synthetic)
          .above(0)
          .def(1.0),
      enum_key("dataset.partition.kind", {"iid", "shards", "dirichlet"},
               "How training samples are split among devices.")
          .def("iid"),
      integer_key("dataset.partition.labels_per_device", "Distinct labels each device holds.")
          .only_when(when("dataset.partition.kind", {"shards"}))
          .at_least(1)
          .limit(1000, "the largest number of classes")
          .def(2),
      number_key("dataset.partition.alpha", "Dirichlet concentration (smaller = more skewed).")
          .only_when(when("dataset.partition.kind", {"dirichlet"}))
          .above(0)
          .def(0.5),

      enum_key("model.name", model_names,
               "Model architecture: mlp and cnn train for real; the catalogue models (" +
                   text::join(catalogue_names, ", ") +
                   ", see \"Model catalogue\") only with training.compute timing-only.")
          .def("mlp"),
      int_list_key("model.hidden", "Hidden layer widths; [] = the model's default (mlp [128], cnn [50]).")
          .only_when(small_model)
          .at_least(1)
          .limit(65536, kWhyWidth)
          .entries_limit(64, "far deeper than the models edge devices train; each layer holds its own tensors")
          .def(json::array()),
      int_list_key("model.conv_channels", "Output channels of the convolution layers (cnn).")
          .at_least(1)
          .limit(4096, "a 4096 x 4096 5x5 convolution is already 1.6 GiB of fp32 weights")
          .entries_limit(16, "each 5x5 convolution with 2x2 pooling more than halves the input: the widest allows 14")
          .only_when(small_model)
          .def(json::array({10, 20})),
      enum_key("model.cost_as", catalogue_names,
               "A catalogue model whose costs the run charges: each step costs its FLOPs per sample and each "
               "message its size, while the mlp or cnn trains for real (results say so).")
          .allowed_only_when(small_model)
          .null_default("the model's own costs"),

      enum_key("training.mode", {"sync", "scadles", "async", "local-sgd"},
               "Training strategy: sync = synchronous data-parallel SGD with a fixed batch per device; "
               "scadles = each device's batch follows its stream rate, aggregation weighted by batch, "
               "learning rate scaled linearly with the global batch; async = asynchronous parameter server: "
               "each device pulls the model, computes a gradient and pushes it, the server applies every push "
               "on arrival; local-sgd = FedAvg-style: each device runs `training.local_steps` SGD steps at "
               "`training.lr` on its own copy of the pulled model, then pushes the model delta, and the server "
               "aggregates the deltas (`training.aggregation`).")
          .def("sync"),
      integer_key("training.batch_size", "Samples per device per step.").at_least(1).limit(1e6, kWhyBatch).def(32),
      number_key("training.lr", "Learning rate.").above(0).def(0.05),
      number_key("training.momentum", "SGD momentum.").at_least(0).below(1).def(0.0),
      number_key("training.weight_decay", "L2 weight decay.").at_least(0).def(0.0),
      quantity_key("training.window_s", Unit::Seconds,
                   "ScaDLES: device i's batch is clip(round(rate_i x window_s), batch_min, batch_max).")
          .only_when(scadles)
          .above(0)
          .def(1.0),
      integer_key("training.batch_min", "ScaDLES: smallest batch per device.")
          .only_when(scadles)
          .at_least(1)
          .limit(1e6, kWhyBatch)
          .def(8),
      integer_key("training.batch_max", "ScaDLES: largest batch per device.")
          .only_when(scadles)
          .at_least(1)
          .limit(1e6, kWhyBatch)
          .def(1024),
      integer_key("training.base_global_batch",
                  "ScaDLES: the global batch at which the learning rate is `training.lr`; 0 means the same as "
                  "null.")
          .only_when(scadles)
          .at_least(0)
          .limit(1e12, "a million devices at the largest batch")
          .null_default("`training.batch_size` times the number of devices"),
      enum_key("training.weighting", {"batch", "uniform"},
               "ScaDLES aggregation weights: batch = b_i / sum of b; uniform = 1 / number of devices.")
          .only_when(scadles)
          .def("batch"),
      enum_key("training.lr_scaling", {"linear", "none"},
               "ScaDLES learning rate: linear = `training.lr` x global batch / `base_global_batch`; none = "
               "`training.lr`.")
          .only_when(scadles)
          .def("linear"),
      section_key("training.injection",
                  "ScaDLES data injection: at each step some devices share part of their batch with the others.")
          .only_when(scadles)
          .null_default("no injection"),
      number_key("training.injection.alpha", "Fraction of devices that share at each step.")
          .above(0)
          .at_most(1)
          .required(),
      number_key("training.injection.beta", "Fraction of its batch a sharing device shares.")
          .above(0)
          .at_most(1)
          .required(),

      enum_key("training.staleness_lr", {"none", "inverse", "adacomp"},
               "Async, and local-sgd with aggregation async: step size of a push of staleness d (updates applied since "
               "its pull): none = unchanged; "
               "inverse = divided by max(1, d); adacomp = coordinate k divided by max(1, sigma_k), the number "
               "of those d updates that touched k.")
          .only_when(async_pushes)
          .def("none"),
      integer_key("training.max_staleness",
                  "Async, and local-sgd with aggregation async: with staleness_policy drop, a push staler than this "
                  "(versions applied since its pull) is dropped (counted in stale_drops), not applied; with hold, "
                  "the most pushes a device may be ahead of the slowest device that is on.")
          .only_when(async_pushes)
          .at_least(0)
          .limit(1e12, kWhyCount)
          .no_limit(),
      enum_key("training.staleness_policy", {"drop", "hold"},
               "Async, and local-sgd with aggregation async, with max_staleness: drop = a staler push is dropped; "
               "hold = stale synchronous parallel (Ho et al. 2013): a device more than max_staleness pushes ahead "
               "of the slowest device that is on waits for its model until the slowest catches up (counted in "
               "holds and held_s), and nothing is dropped.")
          .allowed_only_when(async_pushes)
          .def("drop"),
      integer_key("training.buffer_size",
                  "Async, and local-sgd with aggregation async: buffered asynchrony (FedBuff, Nguyen et al. 2022): "
                  "the server adds each push, scaled by staleness_lr, to a buffer and applies the buffer's average "
                  "every buffer_size pushes as one model version; 1 = each push applied on arrival.")
          .allowed_only_when(async_pushes)
          .at_least(1)
          .limit(1e6, kWhyCount)
          .def(1),
      quantity_key("training.start_jitter_s", Unit::Seconds,
                   "Async, and local-sgd with aggregation async: each device starts after a seeded uniform delay "
                   "in [0, start_jitter_s], so identical devices do not run in lockstep (real fleets never start "
                   "together).")
          .only_when(async_pushes)
          .at_least(0)
          .def(0.0),
      integer_key("training.staleness_history",
                  "Async, and local-sgd with aggregation async; with staleness_lr adacomp: index sets kept for the "
                  "last this many updates (older ones count as touching every coordinate).")
          .only_when(async_pushes)
          .at_least(1)
          .limit(100000, "each kept index set may be as large as the model")
          .def(1000),
      integer_key("training.local_steps",
                  "Local SGD: SGD steps each device runs on its model copy between a pull and its push.")
          .only_when(local_sgd)
          .at_least(1)
          .limit(1e6, kWhyCount)
          .def(5),
      enum_key("training.aggregation", {"sync", "async"},
               "Local SGD: sync = rounds like mode sync, deltas weighted by samples; async = each delta applied on "
               "arrival like mode async.")
          .only_when(local_sgd)
          .def("sync"),
      number_key("training.server_lr",
                 "Local SGD: server step on the aggregated delta (model += server_lr x delta); 1 = plain FedAvg.")
          .only_when(local_sgd)
          .above(0)
          .def(1.0),
      quantity_key("training.round_timeout_s", Unit::Seconds,
                   "Synchronous rounds (sync, scadles, local-sgd with aggregation sync): the server aggregates what "
                   "arrived within this long after sending the model, and counts the missing. Required with "
                   "`faults` device or link entries.")
          .only_when(when("training.mode", {"sync", "scadles", "local-sgd"}))
          .above(0)
          .null_default("wait for every device"),
      section_key("training.selection",
                  "Client selection in synchronous rounds (sync, scadles, local-sgd with aggregation sync): which "
                  "devices the server sends the model to each round; only they compute and upload.")
          .allowed_only_when(when("training.mode", {"sync", "scadles", "local-sgd"}))
          .null_default("every device, every round"),
      enum_key("training.selection.kind", {"all", "random", "available", "oort"},
               "all = every device; random = a seeded uniform sample of devices each round, without replacement "
               "(FedAvg's client sampling); available = only devices that are on, not busy with an earlier "
               "round and (streaming) hold a full batch, all of them or a seeded sample; oort = Oort's guided "
               "selection among the available devices (Lai et al., OSDI 2021; formula in the README).")
          .def("all"),
      integer_key("training.selection.per_round",
                  "Devices picked each round (random, available, oort): K, the updates a round aggregates.")
          .allowed_only_when(when("training.selection.kind", {"random", "available", "oort"}))
          .at_least(1)
          .limit(1e6, "a million devices")
          .null_default("from `fraction`"),
      number_key("training.selection.fraction",
                 "The share of devices picked each round (random, available, oort), rounded to the nearest whole "
                 "number (at least 1).")
          .allowed_only_when(when("training.selection.kind", {"random", "available", "oort"}))
          .above(0)
          .at_most(1)
          .null_default("from `per_round`"),
      number_key("training.selection.over_selection",
                 "Over-selection with a deadline (random, available, oort; needs per_round or fraction): selects "
                 "ceil(K x (1 + over_selection)) devices and aggregates the first K updates to arrive; the round "
                 "closes then, and those that come after are late.")
          .allowed_only_when(when("training.selection.kind", {"random", "available", "oort"}))
          .at_least(0)
          .at_most(10)
          .def(0.0),
      number_key("training.selection.exploration",
                 "Oort: the share of each round's picks that go to never-picked devices (seeded, uniform).")
          .allowed_only_when(when("training.selection.kind", {"oort"}))
          .at_least(0)
          .at_most(1)
          .def(0.1),
      number_key("training.selection.alpha",
                 "Oort: the straggler penalty's exponent, (T / t)^alpha for a device whose last round time t "
                 "exceeds the preferred round duration T.")
          .allowed_only_when(when("training.selection.kind", {"oort"}))
          .at_least(0)
          .at_most(100)
          .def(2.0),
      quantity_key("training.selection.preferred_round_s", Unit::Seconds,
                   "Oort: the preferred round duration T of the straggler penalty.")
          .allowed_only_when(when("training.selection.kind", {"oort"}))
          .above(0)
          .null_default("the median of the last round's times"),
      section_key("compression",
                  "Gradient compression. Its keys configure the uplink (device -> server: each device's "
                  "gradient every step); `compression.downlink` the other direction.")
          .null_default("no compression: dense fp32 both ways"),
  };
  const auto uplink = compressor_rows("compression", "Uplink compressor: " + compress::kind_legend() + ".");
  const auto downlink = nested_compressor(uplink, "compression", "compression.downlink");
  std::vector<KeySpec> compression_tail = {
      section_key("compression.adaptive",
                  "ScaDLES adaptive compression: each step the device computes the norm gap | ||g|| - "
                  "||Top_k(g)|| | / ||g||, smooths it (EWMA with weight `smoothing` on the past), and sends "
                  "top-k compressed when the smoothed gap <= `delta`, dense otherwise.")
          .allowed_only_when(when("compression.kind", {"topk"}))
          .null_default("always compressed"),
      number_key("compression.adaptive.delta", "Largest smoothed norm gap at which the device sends compressed.")
          .at_least(0)
          .def(0.3),
      number_key("compression.adaptive.smoothing", "EWMA weight of the past in the smoothed norm gap.")
          .at_least(0)
          .below(1)
          .def(0.9),
      section_key("compression.downlink",
                  "Downlink compression (server -> device): the server sends each device the compressed delta "
                  "between the current model and that device's copy. Same keys, defaults and rules as the uplink "
                  "`compression.*` (no `adaptive`).")
          .null_default("the dense fp32 model every round"),
  };
  compression_tail.insert(compression_tail.end(), downlink.begin(), downlink.end());

  std::vector<KeySpec> faults = {
      section_key("faults",
                  "Faults: devices that go off and come back (churn), link bandwidth over time and link outages.")
          .null_default("no faults"),
      entry_list_key("faults.devices", "",
                     "an object {\"device\": ..., \"off_s\": [[off, on], ...]} or {\"device\": ..., \"mtbf_s\": ..., "
                     "\"mttr_s\": ...}",
                     "Device availability, one entry per device (or `*`): fixed off intervals (`off_s`), or seeded "
                     "random failures (`mtbf_s` and `mttr_s`).")
          .empty_allowed()
          .null_default("no device faults"),
      string_key("faults.devices[].device",
                 "A device name (`devices[].name`), or `*` = every device not named in another entry.")
          .def("*"),
      interval_list_key("faults.devices[].off_s", "Times the device is off, e.g. `[[60, 120], [300, 330]]`.")
          .null_default("no fixed off intervals"),
      quantity_key("faults.devices[].mtbf_s", Unit::Seconds,
                   "Mean time between failures: each up time is drawn exponential with this mean (seeded).")
          .above(0)
          .null_default("no random failures"),
      quantity_key("faults.devices[].mttr_s", Unit::Seconds,
                   "Mean time to repair: each down time is drawn exponential with this mean (seeded).")
          .above(0)
          .null_default("no random failures"),
      entry_list_key("faults.links", "", "an object {\"link\": ..., \"trace\": ..., \"off_s\": [[off, on], ...]}",
                     "Link faults, one entry per link: its bandwidth over time (`trace`) and its outages (`off_s`).")
          .empty_allowed()
          .null_default("no link faults"),
      string_key("faults.links[].link",
                 "Platform link name; a SPLITDUPLEX link is `<id>_UP` or `<id>_DOWN` (checked against the platform "
                 "when the run starts).")
          .required(),
      path_key("faults.links[].trace", PathKind::File,
               "CSV file of `time_s,bandwidth_bps` rows (header allowed): the link's bandwidth over time, piecewise "
               "constant.")
          .null_default("the platform's constant bandwidth"),
      interval_list_key("faults.links[].off_s", "Times the link is down, e.g. `[[60, 120]]`.")
          .null_default("never down"),
      quantity_key("faults.retry_s", Unit::Seconds,
                   "A device waits this long after a failed transfer before trying again.")
          .above(0)
          .def(1.0),
  };

  std::vector<KeySpec> last = {
      quantity_key("eval.every_s", Unit::Seconds, "Simulated time between two test-set evaluations.").above(0).def(5.0),
      integer_key("eval.test_samples", "Test samples per evaluation (capped at the test set).")
          .at_least(1)
          .limit(1e8, kWhySamples)
          .def(10000),

      integer_key("stop.rounds",
                  "Stop after this many aggregation rounds (async: model versions, one per `training.buffer_size` "
                  "applied pushes).")
          .at_least(1)
          .limit(1e12, kWhyCount)
          .no_limit(),
      quantity_key("stop.sim_time_s", Unit::Seconds, "Stop at this simulated time.").above(0).no_limit(),
      number_key("stop.target_accuracy", "Stop once the test accuracy reaches this fraction.")
          .above(0)
          .at_most(1)
          .no_limit(),

      quantity_key("report.buffer_every_s", Unit::Seconds,
                   "buffers.csv keeps at most one row per device per this much simulated time.")
          .above(0)
          .def(1.0),
  };
  // After `devices` and `server`: the sites are resolved against them (scenario/sites.hpp).
  const Condition hierarchical = when("topology.kind", {"hierarchical"});
  const Condition gossip = when("topology.kind", {"gossip"});
  std::vector<KeySpec> topology = {
      enum_key("topology.kind", {"flat", "hierarchical", "gossip"},
               "How devices reach the model: flat = every device sends to the server; hierarchical = devices send "
               "to their site's aggregator, which aggregates its members for `site_rounds` rounds and sends the "
               "site's model delta to the server (HierFAVG); gossip = no server: each device's peer applies its "
               "device's update, sends its model to its neighbours in `topology.graph` and averages what it "
               "receives with Metropolis-Hastings weights (decentralised SGD, see \"Decentralised gossip\").")
          .def("flat"),
      enum_key("topology.graph", {"ring", "torus", "random-k", "complete", "platform-neighbours"},
               "Gossip: who exchanges models with whom. ring = device i with i-1 and i+1 (scenario order); torus = "
               "an r x c grid with wrap-around, r x c = the number of devices, r the largest divisor <= sqrt(n); "
               "random-k = each device links to `degree` others drawn uniformly (seeded, drawn again until "
               "connected); complete = everyone (exact averaging); platform-neighbours = devices of the same site "
               "(host property `site`, else the same netzone) all linked, the sites chained by their first "
               "devices.")
          .only_when(gossip)
          .def("ring"),
      integer_key("topology.degree", "Gossip random-k: links each device draws (at most the number of devices - 1).")
          .only_when(when("topology.graph", {"random-k"}))
          .at_least(1)
          .limit(1e6, "a million devices")
          .def(3),
      row("topology.sites", ValueType::SiteMap,
          "Hierarchical: each site aggregator's host and its devices, as {\"AGG-HOST\": selector or list of "
          "device names}. Every device belongs to exactly one site.")
          .allowed_only_when(hierarchical)
          .null_default("derived from the platform: hosts with role `site-aggregator`, devices by their `site` "
                        "property (generated fleets)"),
      integer_key("topology.site_rounds", "Hierarchical: synchronous rounds each site runs per cloud round.")
          .allowed_only_when(hierarchical)
          .at_least(1)
          .limit(1e6, kWhyCount)
          .def(1),
      enum_key("topology.cloud_aggregation", {"sync", "async"},
               "Hierarchical: sync = cloud rounds (every site's delta, or training.round_timeout_s, then the "
               "weighted average); async = each site's delta applied on arrival, scaled by the site's share of the "
               "devices, and the site sent the new model at once.")
          .allowed_only_when(hierarchical)
          .def("sync"),
      section_key("topology.site_compression",
                  "Hierarchical: the compressor of each site's model delta to the server (site -> cloud). Same keys, "
                  "defaults and rules as `compression.*` (no `adaptive`).")
          .allowed_only_when(hierarchical)
          .null_default("the dense fp32 delta"),
  };
  for (auto r : nested_compressor(uplink, "compression", "topology.site_compression")) {
    r.description = "Site -> cloud " + r.description.substr(r.description.find(' ') + 1);
    topology.push_back(std::move(r));
  }
  for (const auto& part : {tail, uplink, compression_tail, faults, topology, last})
    head.insert(head.end(), part.begin(), part.end());
  for (auto& k : head) {
    if (is_duration(k) && !k.max) k.limit(util::kMaxTimeS, "about 31.7 years: 1us stays above the clock's rounding");
  }
  return head;
}

// The entries of the list `key` ("devices", "links") of the resolved `faults` section; none
// when the section or the list is null.
const nlohmann::json& fault_entries(const nlohmann::json& r, const char* key) {
  static const nlohmann::json none = nlohmann::json::array();
  const auto& f = r.at("faults");
  if (f.is_null() || f.at(key).is_null()) return none;
  return f.at(key);
}

std::string entry_at(const std::string& list, size_t i) { return list + "[" + std::to_string(i) + "]"; }

// "faults.devices[i].device": a device of the scenario or "*", each named at most once.
void check_fault_device_names(const nlohmann::json& r) {
  const auto& entries = fault_entries(r, "devices");
  std::vector<std::string> names;
  for (const auto& d : r.at("devices")) names.push_back(d.at("name").get<std::string>());
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < entries.size(); ++i) {
    const std::string at = entry_at("faults.devices", i) + ".device";
    const auto& name = entries[i].at("device").get_ref<const std::string&>();
    if (name != "*" && std::find(names.begin(), names.end(), name) == names.end()) {
      std::string msg = at + ": no device named " + text::show(name);
      if (auto near = text::closest(name, names)) throw ScenarioError(msg + " (did you mean \"" + *near + "\"?)");
      constexpr size_t kShown = 8;
      std::vector<std::string> shown(names.begin(), names.begin() + std::min(names.size(), kShown));
      if (names.size() > kShown) shown.push_back("...");
      throw ScenarioError(msg + " (devices: " + text::join(shown, ", ") + "; or \"*\" for every other device)");
    }
    const auto [it, fresh] = seen.emplace(name, i);
    if (fresh) continue;
    const std::string first = entry_at("faults.devices", it->second);
    if (name == "*") {
      throw ScenarioError(at + ": a second \"*\" entry (" + first + " already covers every device not named)");
    }
    throw ScenarioError(at + ": device " + text::show(name) + " already has an entry (" + first + ")");
  }
}

// "compression.timing_ratio" when a timing-only run needs it and it is missing: `at` is the
// direction's section, `adaptive` whether ScaDLES's adaptive top-k is on there.
void check_timing_ratio(const nlohmann::json& spec, const std::string& at, bool adaptive) {
  if (spec.is_null() || !spec.contains("timing_ratio") || !spec.at("timing_ratio").is_null()) return;
  const std::string kind = spec.at("kind").get<std::string>();
  std::string why;
  if (kind == "threshold" || kind == "adacomp-bins") {
    why = "kind " + kind + " sends as many entries as the gradients make it";
  } else if (adaptive) {
    why = "adaptive top-k sends dense or compressed as the gradients make it";
  } else {
    return;
  }
  throw ScenarioError(at + ".timing_ratio: required with training.compute timing-only (" + why +
                      "): declare the average message size as a fraction of the dense fp32 update, e.g. 0.05");
}

// What gossip runs refuse (the topology.kind rule): every peer runs synchronous iterations with its
// neighbours, without faults.
void gossip_limits(const nlohmann::json& r) {
  const auto& t = r.at("training");
  const auto& mode = t.at("mode").get_ref<const std::string&>();
  auto refuse = [](const std::string& what) { throw ScenarioError("topology.kind: gossip does not support " + what); };
  if (mode == "async" || (mode == "local-sgd" && t.at("aggregation") == "async")) {
    refuse("updates applied on arrival (training.mode " + mode +
           (mode == "async" ? std::string() : std::string(" with aggregation async")) +
           "): every peer runs synchronous iterations with its neighbours");
  }
  if (mode == "scadles") refuse("training.mode scadles (its weights and learning rate span the fleet's round)");
  if (!r.at("faults").is_null()) refuse("faults (set faults to null)");
  if (t.contains("round_timeout_s") && !t.at("round_timeout_s").is_null()) {
    refuse("training.round_timeout_s (a peer waits for each neighbour's model)");
  }
  if (t.contains("selection") && !t.at("selection").is_null() && t.at("selection").at("kind") != "all") {
    refuse("a random training.selection (every peer trains every iteration)");
  }
}

std::vector<Rule> build_rules() {
  return {
      {"model.name",
       "A catalogue model needs `training.compute` timing-only (edgetrain trains only mlp and cnn); a real run "
       "charges a catalogue model's costs with `model.cost_as`.",
       [](const nlohmann::json& r) {
         const std::string name = r.at("model").at("name").get<std::string>();
         if (!learn::find_model(name) || r.at("training").at("compute") != "real") return;
         throw ScenarioError("model.name: " + text::show(name) +
                             " is a catalogue model, which edgetrain does not train: set training.compute to "
                             "\"timing-only\", or train mlp or cnn with model.cost_as " +
                             text::show(name) + " to charge its FLOPs and message sizes");
       }},
      {"stop.target_accuracy", "Not with `training.compute` timing-only: no accuracy is measured there.",
       [](const nlohmann::json& r) {
         if (r.at("training").at("compute") != "timing-only" || r.at("stop").at("target_accuracy").is_null()) return;
         throw ScenarioError(
             "stop.target_accuracy: not available with training.compute timing-only: nothing is trained, so no "
             "accuracy is measured and nothing can reach it (set it to null and stop with stop.rounds or "
             "stop.sim_time_s)");
       }},
      {"compression.timing_ratio",
       "Required with `training.compute` timing-only when the message size depends on the data: kind threshold "
       "or adacomp-bins, or topk with `compression.adaptive` (also `compression.downlink.timing_ratio`).",
       [](const nlohmann::json& r) {
         if (r.at("training").at("compute") != "timing-only") return;
         const auto& c = r.at("compression");
         if (c.is_null()) return;
         check_timing_ratio(c, "compression", c.contains("adaptive") && !c.at("adaptive").is_null());
         check_timing_ratio(c.at("downlink"), "compression.downlink", false);
       }},
      {"dataset.shape",
       "The product of the entries must be at most 2^24 = 16777216 values per sample (64 MiB of fp32).",
       [](const nlohmann::json& r) {
         const auto& ds = r.at("dataset");
         if (!ds.contains("shape")) return;  // not synthetic
         int64_t values = 1;                 // each entry <= 65536: three of them fit int64
         for (const auto& e : ds.at("shape")) values *= e.get<int64_t>();
         if (values > kMaxSampleValues) {
           throw ScenarioError("dataset.shape: " + std::to_string(values) + " values per sample; at most " +
                               std::to_string(kMaxSampleValues) + " (2^24, 64 MiB of fp32) are allowed");
         }
       }},
      {"stop", "At least one of `stop.rounds` and `stop.sim_time_s` must be set.",
       [](const nlohmann::json& r) {
         const auto& stop = r.at("stop");
         if (stop.at("rounds").is_null() && stop.at("sim_time_s").is_null()) {
           throw ScenarioError("stop: set stop.rounds or stop.sim_time_s (or both), otherwise the run never ends");
         }
       }},
      {"devices", "Device names must be unique; the server host cannot also be a device.",
       [](const nlohmann::json& r) {
         const auto& devices = r.at("devices");
         const auto& server = r.at("server").get_ref<const std::string&>();
         std::map<std::string, size_t> seen;
         for (size_t i = 0; i < devices.size(); ++i) {
           const std::string at = entry_at("devices", i);
           const auto& name = devices[i].at("name").get_ref<const std::string&>();
           const auto& host = devices[i].at("host").get_ref<const std::string&>();
           if (!seen.emplace(name, i).second) {
             throw ScenarioError(at + ": duplicate device name " + text::show(name));
           }
           if (host == server) {
             throw ScenarioError(at + ": host " + text::show(host) +
                                 " is the server; the server cannot also be a device");
           }
         }
       }},
      {"training.mode", "`scadles` needs a stream for every device (a global `stream`, or each device's own).",
       [](const nlohmann::json& r) {
         if (r.at("training").at("mode") != "scadles") return;
         const auto& devices = r.at("devices");
         for (size_t i = 0; i < devices.size(); ++i) {
           if (devices[i].at("stream").is_null()) {
             const std::string at = entry_at("devices", i);
             throw ScenarioError("training.mode: scadles needs a stream for every device (" + at +
                                 " has none: add a global stream section or " + at + ".stream)");
           }
         }
       }},
      {"training.batch_min", "Must be <= `training.batch_max`.",
       [](const nlohmann::json& r) {
         const auto& t = r.at("training");
         if (!t.contains("batch_min") || !t.contains("batch_max")) return;  // not scadles
         const auto lo = t.at("batch_min").get<int64_t>(), hi = t.at("batch_max").get<int64_t>();
         if (lo > hi) {
           throw ScenarioError("training.batch_min: must be <= training.batch_max (" + std::to_string(hi) + "), got " +
                               std::to_string(lo));
         }
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
      {"faults.devices", "Each entry gives either `off_s`, or both `mtbf_s` and `mttr_s`.",
       [](const nlohmann::json& r) {
         const auto& entries = fault_entries(r, "devices");
         for (size_t i = 0; i < entries.size(); ++i) {
           const std::string at = entry_at("faults.devices", i);
           const bool off = !entries[i].at("off_s").is_null();
           const bool mtbf = !entries[i].at("mtbf_s").is_null(), mttr = !entries[i].at("mttr_s").is_null();
           if (off && (mtbf || mttr)) {
             throw ScenarioError(at +
                                 ": give either off_s (fixed off intervals) or mtbf_s and mttr_s (random "
                                 "failures), not both");
           }
           if (mtbf && !mttr) throw ScenarioError(at + ".mttr_s: required with mtbf_s (random failures need both)");
           if (mttr && !mtbf) throw ScenarioError(at + ".mtbf_s: required with mttr_s (random failures need both)");
           if (!off && !mtbf) {
             throw ScenarioError(at + ": give off_s (fixed off intervals), or mtbf_s and mttr_s (random failures)");
           }
         }
       }},
      {"faults.devices[].device",
       "A device name of `devices` or `*`; each device in at most one entry, and at most one `*` entry.",
       check_fault_device_names},
      {"faults.devices",
       "Not supported with `compression.downlink`: a device that restarts has lost its model copy, which the "
       "downlink deltas update.",
       [](const nlohmann::json& r) {
         if (fault_entries(r, "devices").empty()) return;
         const auto& c = r.at("compression");
         if (c.is_null() || c.at("downlink").is_null()) return;
         throw ScenarioError(
             "faults.devices: not supported with compression.downlink: a device that restarts has lost its model "
             "copy, which the downlink deltas update (set compression.downlink to null)");
       }},
      {"faults.links", "Each entry gives `trace` or `off_s` (or both); each link in at most one entry.",
       [](const nlohmann::json& r) {
         const auto& entries = fault_entries(r, "links");
         std::map<std::string, size_t> seen;
         for (size_t i = 0; i < entries.size(); ++i) {
           const std::string at = entry_at("faults.links", i);
           if (entries[i].at("trace").is_null() && entries[i].at("off_s").is_null()) {
             throw ScenarioError(at + ": give trace (bandwidth over time), off_s (outages), or both");
           }
           const auto& link = entries[i].at("link").get_ref<const std::string&>();
           const auto [it, fresh] = seen.emplace(link, i);
           if (!fresh) {
             throw ScenarioError(at + ".link: link " + text::show(link) + " already has an entry (" +
                                 entry_at("faults.links", it->second) + ")");
           }
         }
       }},
      {"training.round_timeout_s",
       "Required by the synchronous modes (sync, scadles, local-sgd with aggregation sync) when `faults` has device "
       "or link entries: otherwise a round would wait for a device that is off.",
       [](const nlohmann::json& r) {
         if (fault_entries(r, "devices").empty() && fault_entries(r, "links").empty()) return;
         const auto& t = r.at("training");
         const auto& mode = t.at("mode").get_ref<const std::string&>();
         std::string which;
         if (mode == "sync" || mode == "scadles") {
           which = "mode " + mode;
         } else if (mode == "local-sgd" && t.at("aggregation") == "sync") {
           which = "mode local-sgd with aggregation sync";
         } else {
           return;
         }
         if (!t.at("round_timeout_s").is_null()) return;
         throw ScenarioError("training.round_timeout_s: required in " + which +
                             " when faults has device or link entries (without it a round waits for every device, "
                             "however long one is off or cut off)");
       }},
      {"topology.kind",
       "hierarchical needs synchronous rounds at the sites (sync, scadles, local-sgd with aggregation sync), and "
       "no data injection. gossip runs synchronous iterations without faults: not with the modes that apply "
       "updates on arrival (async, local-sgd with aggregation async), scadles (its weights and learning rate span "
       "the whole fleet's round), `faults`, `training.round_timeout_s` or a random `training.selection`.",
       [](const nlohmann::json& r) {
         const auto& kind = r.at("topology").at("kind");
         if (kind == "gossip") return gossip_limits(r);
         if (kind != "hierarchical") return;
         const auto& t = r.at("training");
         if (t.at("mode") == "async" || (t.at("mode") == "local-sgd" && t.at("aggregation") != "sync")) {
           throw ScenarioError(
               "topology.kind: hierarchical needs synchronous rounds at the sites (training.mode "
               "sync, scadles, or local-sgd with aggregation sync), not updates applied on arrival");
         }
         if (t.contains("injection") && !t.at("injection").is_null()) {
           throw ScenarioError("training.injection: not supported with topology.kind hierarchical (set it to null)");
         }
       }},
      {"training.selection",
       "Random and oort selection need exactly one of `per_round` (at most the number of devices) and "
       "`fraction`, available at most one; over_selection needs one of them; synchronous rounds; not with data "
       "injection (it plans over every device).",
       [](const nlohmann::json& r) {
         const auto& t = r.at("training");
         if (!t.contains("selection") || t.at("selection").is_null()) return;
         const auto& sel = t.at("selection");
         const std::string kind = sel.at("kind").get<std::string>();
         if (kind == "all") return;
         auto given = [&](const char* key) { return sel.contains(key) && !sel.at(key).is_null(); };
         const bool per_round = given("per_round"), fraction = given("fraction");
         if (per_round && fraction) {
           throw ScenarioError("training.selection: give one of per_round and fraction, not both");
         }
         if (kind != "available" && !per_round && !fraction) {
           throw ScenarioError("training.selection: kind " + kind + " needs one of per_round and fraction");
         }
         if (sel.at("over_selection").get<double>() > 0 && !per_round && !fraction) {
           throw ScenarioError(
               "training.selection.over_selection: needs per_round or fraction (K, the updates a round "
               "aggregates)");
         }
         if (t.at("mode") == "local-sgd" && t.at("aggregation") != "sync") {
           throw ScenarioError("training.selection: needs synchronous rounds (local-sgd with aggregation sync)");
         }
         if (t.contains("injection") && !t.at("injection").is_null()) {
           throw ScenarioError(
               "training.selection: not supported with training.injection (injection plans every "
               "round over every device); set one of them to null");
         }
         if (per_round && r.at("devices").is_array() &&
             sel.at("per_round").get<int64_t>() > static_cast<int64_t>(r.at("devices").size())) {
           throw ScenarioError("training.selection.per_round: " + sel.at("per_round").dump() + " is more than the " +
                               std::to_string(r.at("devices").size()) + " devices");
         }
       }},
      {"training.buffer_size",
       "`buffer_size` other than 1 and `staleness_policy` hold need pushes applied on arrival (local-sgd with "
       "aggregation async); hold needs `max_staleness`.",
       [](const nlohmann::json& r) {
         const auto& t = r.at("training");
         if (!t.contains("buffer_size")) return;  // not async
         const bool buffered = t.at("buffer_size") != 1, hold = t.at("staleness_policy") == "hold";
         if (t.at("mode") == "local-sgd" && t.at("aggregation") == "sync") {
           if (buffered) {
             throw ScenarioError(
                 "training.buffer_size: needs pushes applied on arrival (local-sgd with aggregation async)");
           }
           if (hold) {
             throw ScenarioError(
                 "training.staleness_policy: hold needs pushes applied on arrival (local-sgd with aggregation async)");
           }
           return;
         }
         if (hold && t.at("max_staleness").is_null()) {
           throw ScenarioError("training.staleness_policy: hold needs training.max_staleness (the bound it holds to)");
         }
       }},
      {"training.injection",
       "Not with `training.round_timeout_s`: a round that closes without some devices would "
       "lose the samples handed to them.",
       [](const nlohmann::json& r) {
         const auto& t = r.at("training");
         if (!t.contains("injection") || t.at("injection").is_null()) return;
         if (!t.contains("round_timeout_s") || t.at("round_timeout_s").is_null()) return;
         throw ScenarioError(
             "training.injection: not supported with training.round_timeout_s (a round that closes without some "
             "devices would lose the samples handed to them); set one of them to null");
       }},
  };
}

// A bound as written in the table: whole numbers in digits (1000000, not 1e+06).
std::string bound(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e16) return std::to_string(static_cast<int64_t>(v));
  return text::format_number(v);
}

std::string md_escape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

const std::vector<RateForm>& rate_forms() {
  static const std::vector<RateForm> forms = {
      {"constant", {"value"}}, {"uniform", {"mean", "spread"}}, {"normal", {"mean", "std"}}, {"list", {"values"}}};
  return forms;
}

const std::vector<RatePreset>& rate_presets() {
  using nlohmann::json;
  // The ScaDLES paper's rate sets (samples per second).
  static const std::vector<RatePreset> presets = {
      {"S1", json{{"dist", "uniform"}, {"mean", 38.0}, {"spread", 24.0}}},
      {"S2", json{{"dist", "uniform"}, {"mean", 300.0}, {"spread", 112.0}}},
      {"S10", json{{"dist", "normal"}, {"mean", 64.0}, {"std", 24.0}}},
      {"S20", json{{"dist", "normal"}, {"mean", 256.0}, {"std", 28.0}}},
  };
  return presets;
}

const RatePreset* find_rate_preset(std::string_view name) {
  for (const auto& p : rate_presets()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const std::vector<std::string>& rate_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k{"dist"};
    for (const auto& f : rate_forms()) {
      for (const auto& p : f.params) {
        if (std::find(k.begin(), k.end(), p) == k.end()) k.push_back(p);
      }
    }
    return k;
  }();
  return keys;
}

namespace {
std::string number_text(const nlohmann::json& v) {
  if (v.is_number()) return text::format_number(v.get<double>());
  if (v.is_array()) {
    std::vector<std::string> parts;
    for (const auto& e : v) parts.push_back(number_text(e));
    return "[" + text::join(parts, ", ") + "]";
  }
  return text::show(v);
}
}  // namespace

std::string rate_text(const nlohmann::json& r) {
  if (r.is_null()) return "none";
  if (r.is_number()) return number_text(r);
  if (r.is_string()) {
    const RatePreset* p = find_rate_preset(r.get<std::string>());
    return p ? p->name + " (" + rate_text(p->resolved) + ")" : r.get<std::string>();
  }
  if (!r.is_object() || !r.contains("dist")) return text::show(r);
  const std::string dist = r.at("dist").is_string() ? r.at("dist").get<std::string>() : text::show(r.at("dist"));
  if (dist == "constant" && r.contains("value")) return number_text(r.at("value"));
  std::string out = dist;
  for (const auto& f : rate_forms()) {
    if (f.dist != dist) continue;
    for (const auto& p : f.params) {
      if (r.contains(p)) out += ", " + p + " " + number_text(r.at(p));
    }
  }
  return out;
}

const std::vector<KeySpec>& schema_keys() {
  static const std::vector<KeySpec> table = build_table();
  return table;
}

const std::vector<Rule>& schema_rules() {
  static const std::vector<Rule> rules = build_rules();
  return rules;
}

const KeySpec* find_key(std::string_view path) {
  for (const auto& k : schema_keys()) {
    if (k.path == path) return &k;
  }
  return nullptr;
}

bool is_section(std::string_view path) {
  if (path.empty()) return true;
  for (const auto& k : schema_keys()) {
    if (k.path.size() > path.size() && k.path.compare(0, path.size(), path) == 0 && k.path[path.size()] == '.') {
      return true;
    }
  }
  return false;
}

std::vector<std::string> child_names(std::string_view section) {
  std::vector<std::string> names;
  for (const auto& k : schema_keys()) {
    std::string_view rest = k.path;
    if (!section.empty()) {
      if (!(rest.size() > section.size() && rest.substr(0, section.size()) == section && rest[section.size()] == '.')) {
        continue;
      }
      rest.remove_prefix(section.size() + 1);
    }
    std::string name(rest.substr(0, rest.find('.')));
    if (name.size() > 2 && name.ends_with("[]")) name.resize(name.size() - 2);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

std::string condition_text(const Condition& c) {
  return c.key + (c.negated ? " is not " : " is ") + text::or_list(c.values);
}

std::string key_at(const std::string& key, const std::string& section, const std::string& at_prefix) {
  const std::string prefix = section + ".";
  return !section.empty() && key.rfind(prefix, 0) == 0 ? at_prefix + key.substr(prefix.size()) : key;
}

std::string condition_text_at(const Condition& c, const std::string& section, const std::string& at_prefix) {
  Condition moved = c;
  moved.key = key_at(c.key, section, at_prefix);
  return condition_text(moved);
}

std::string range_text(const KeySpec& key) {
  const Range& r = key.range;
  std::string t;
  if (r.lo && r.hi) {
    t = "in " + std::string(r.lo_open ? "(" : "[") + bound(*r.lo) + ", " + bound(*r.hi) + (r.hi_open ? ")" : "]");
  } else if (r.lo) {
    t = std::string(r.lo_open ? "> " : ">= ") + bound(*r.lo);
  } else if (r.hi) {
    t = std::string(r.hi_open ? "< " : "<= ") + bound(*r.hi);
  } else {
    return "";
  }
  if (key.type == ValueType::Quantity && !unit_symbol(key.unit).empty()) t += " " + std::string(unit_symbol(key.unit));
  return t;
}

bool is_duration(const KeySpec& key) { return key.type == ValueType::Quantity && key.unit == Unit::Seconds; }

std::string clock_text(const KeySpec& key) {
  if (!is_duration(key) || !key.range.lo || *key.range.lo != 0) return "";
  return std::string(key.range.lo_open ? "" : "0 or ") + "at least 1us (the simulator's clock resolution)";
}

std::string limit_text(const KeySpec& key) {
  if (!key.max) return "";
  std::string t = "at most " + bound(*key.max);
  if (key.type == ValueType::Quantity && !unit_symbol(key.unit).empty()) t += " " + std::string(unit_symbol(key.unit));
  return t + (key.max_why.empty() ? "" : " (" + key.max_why + ")");
}

std::string integer_text(const KeySpec& key) {
  const Range& r = key.range;
  // Integer bounds: an open bound is the next integer inwards.
  std::optional<double> lo = r.lo, hi = r.hi;
  if (lo && r.lo_open) lo = *lo + 1;
  if (hi && r.hi_open) hi = *hi - 1;
  if (lo && hi) return "an integer in [" + bound(*lo) + ", " + bound(*hi) + "]";
  if (lo && *lo == 1) return "a positive integer";
  if (lo && *lo == 0) return "a non-negative integer";
  if (lo) return "an integer >= " + bound(*lo);
  if (hi) return "an integer <= " + bound(*hi);
  return "an integer";
}

std::string type_text(const KeySpec& key) {
  std::string t = key.type_doc;
  if (!t.empty()) return key.nullable ? t + " or null" : t;
  switch (key.type) {
    case ValueType::String: t = "string"; break;
    case ValueType::Integer: t = "integer"; break;
    case ValueType::Number: t = "number"; break;
    case ValueType::Boolean: t = "boolean"; break;
    case ValueType::Enum: t = "enum"; break;
    case ValueType::Quantity: {
      t = std::string(unit_noun(key.unit));
      if (!unit_symbol(key.unit).empty()) t += " (" + std::string(unit_symbol(key.unit)) + ")";
      break;
    }
    case ValueType::IntList:
      t = key.list_size ? "list of " + std::to_string(*key.list_size) + " integers" : "list of integers";
      break;
    case ValueType::Path: t = key.path_kind == PathKind::File ? "path (file)" : "path (directory)"; break;
    case ValueType::EntryList: t = "list"; break;
    case ValueType::Section: t = "object"; break;
    case ValueType::Rate: t = "rate (samples/s)"; break;
    case ValueType::IntervalList: t = "list of [off_s, on_s] intervals (s)"; break;
    case ValueType::Platform: t = "path (file) or object"; break;
    case ValueType::SiteMap: t = "object"; break;
    case ValueType::Literal: {
      std::vector<std::string> kinds;  // the JSON types of the literals, each once
      for (const auto& l : key.literals) {
        const std::string kind = l.is_number_integer() ? "integer" : l.is_number() ? "number" : l.type_name();
        if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
      }
      t = text::join(kinds, " or ");
      break;
    }
  }
  if (key.nullable) t += " or null";
  return t;
}

std::string literals_text(const KeySpec& key) {
  std::vector<std::string> dumped;
  for (const auto& l : key.literals) dumped.push_back(l.dump());
  return text::or_list(dumped);
}

std::string default_text(const KeySpec& key) {
  if (!key.inherits.empty()) return "inherited from `" + key.inherits + "`";
  std::vector<std::string> parts;
  for (const auto& rule : key.defaults) {
    std::string p;
    switch (rule.kind) {
      case DefaultRule::Kind::Value: p = "`" + rule.value.dump() + "`"; break;
      case DefaultRule::Kind::Required: p = "required"; break;
      case DefaultRule::Kind::Null: p = "`null` (" + key.null_means + ")"; break;
      case DefaultRule::Kind::FileStem: p = "the scenario file's name without extension"; break;
      case DefaultRule::Kind::SameAs: p = "same as `" + rule.sibling + "`"; break;
      case DefaultRule::Kind::RequiredUnless: p = "required unless `" + rule.sibling + "` is set"; break;
    }
    if (rule.when) p += " if " + condition_text(*rule.when);
    parts.push_back(p);
    if (!rule.when) break;  // later rules can never apply
  }
  // No rule matching means required; a key that applies only under a condition has its rules
  // written to cover that condition, so "otherwise" would only confuse there.
  if ((key.defaults.empty() || key.defaults.back().when) && !key.applies_when) {
    parts.push_back(parts.empty() ? "required" : "required otherwise");
  }
  return text::join(parts, "; ");
}

std::string schema_markdown() {
  std::string md;
  md += "| Key | Type / unit | Default | Description |\n";
  md += "|---|---|---|---|\n";
  for (const auto& k : schema_keys()) {
    std::string d = k.description;
    const std::string limit = limit_text(k).empty() ? "" : ", " + limit_text(k);
    if (k.type == ValueType::Integer) {
      d += " Must be " + integer_text(k) + limit + ".";
    } else if (k.type == ValueType::IntList) {
      if (k.max_entries) {
        d += " At most " + std::to_string(*k.max_entries) + " entries (" + k.max_entries_why + ").";
      }
      d += " Each entry must be " + integer_text(k) + limit + ".";
    } else if (!clock_text(k).empty()) {
      d += " Must be " + clock_text(k) + limit + ".";
    } else if (!range_text(k).empty()) {
      d += std::string(" Must be ") + (k.whole ? "a whole number " : "") + range_text(k) + limit + ".";
    }
    if (k.name_rule == NameRule::Run) {
      d += " 1 to " + std::to_string(kMaxRunNameLength) +
           " characters among letters, digits, `.`, `_` and `-`, not `.` or `..` (one folder name).";
    }
    if (k.name_rule == NameRule::Device) {
      d += " 1 to " + std::to_string(kMaxDeviceNameLength) +
           " printable ASCII characters, no comma or double quote, no space at either end.";
    }
    if (k.type == ValueType::Quantity) {
      d += " Accepts a number in " + std::string(unit_symbol(k.unit)) + " or a string like `\"" +
           std::string(unit_example(k.unit)) + "\"`.";
    }
    if (k.type == ValueType::Rate && k.inherits.empty()) {
      std::vector<std::string> presets;
      for (const auto& p : rate_presets()) presets.push_back("`" + p.name + "` = " + rate_text(p.resolved));
      d += " Presets (the ScaDLES rate sets): " + text::join(presets, "; ") + ".";
    }
    if (k.type == ValueType::Rate && !k.inherits.empty()) d += " Same forms as `" + k.inherits + "`.";
    if (k.type == ValueType::Enum) {
      std::vector<std::string> quoted;
      for (const auto& c : k.choices) quoted.push_back("`" + c + "`");
      d += " One of " + text::join(quoted, ", ") + ".";
    }
    if (k.type == ValueType::Literal) {
      std::vector<std::string> quoted;
      for (const auto& l : k.literals) {
        const std::string literal = l.dump();  // named: GCC 12 -Wrestrict false positive otherwise
        quoted.push_back("`" + literal + "`");
      }
      d += " One of " + text::join(quoted, ", ") + ".";
    }
    if (k.type == ValueType::Path) {
      d += " Relative to the scenario file; must exist" +
           (k.exists_when ? " when " + condition_text(*k.exists_when) : std::string()) + ".";
    }
    if (k.type == ValueType::EntryList && !k.shorthand.empty()) {
      d += " An entry may be written as a plain string, meaning `{\"" + k.shorthand + "\": string}`.";
    }
    if (k.type == ValueType::EntryList && k.may_be_empty) d += " May be empty.";
    if (k.type == ValueType::IntervalList) {
      d += " Each interval [off_s, on_s) in s (numbers, or strings like `\"";
      d += unit_example(Unit::Seconds);
      d += "\"`): 0 <= off_s < on_s <= 1000000000 s, in time order, neither overlapping nor touching; each "
           "interval and each gap between two lasts at least 1us (the simulator's clock resolution).";
    }
    if (k.nullable) d += " `null` = " + k.null_means + ".";
    if (k.applies_when && k.error_unless_applies) {
      d += " Allowed only when " + condition_text(*k.applies_when) + " (an error otherwise).";
    } else if (k.applies_when) {
      d += " Used only when " + condition_text(*k.applies_when) + " (ignored otherwise).";
    }
    md += "| `" + md_escape(k.path) + "` | " + md_escape(type_text(k)) + " | " + md_escape(default_text(k)) + " | " +
          md_escape(d) + " |\n";
  }
  md += "\nRules across keys:\n\n";
  for (const auto& r : schema_rules()) md += "- `" + r.path + "`: " + r.description + "\n";
  md += "- Unknown keys are errors (with a suggestion for likely typos).\n";
  md += "\nUnits: a JSON number is in the base unit; a string may carry a unit.\n\n";
  for (Unit u : {Unit::Seconds, Unit::Bytes, Unit::Flops, Unit::BitsPerSecond, Unit::Count}) {
    const std::string symbol(unit_symbol(u));
    md += "- " + std::string(unit_noun(u)) + (symbol.empty() ? "" : " (base " + symbol + ")") + ": " +
          unit_suffixes(u) + ", e.g. `\"" + std::string(unit_example(u)) + "\"`\n";
  }
  return md;
}

}  // namespace edgetrain::scenario
