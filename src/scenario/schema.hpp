// The scenario schema, declared once as a table of keys (in the spirit of ns-3 attributes).
// Each row gives a key's dotted path, type, default, allowed range, a one-line description and
// the typed field it fills; validation (validate.cpp), documentation (schema_markdown) and the
// typed Scenario (fill.hpp) are all generated from it, so they cannot drift apart.
//
// This header is the machinery; the rows themselves are declared beside their concern, one file
// per concern in scenario/keys/ (keys/table.cpp puts them in table order). Adding a key is adding
// a row there. Keys inside list entries use "[]" in their path:
// "devices[].host" is the "host" key of each entry of "devices". Per-device overrides go there
// too: "devices[].stream.rate" overrides "stream.rate" (`inherits`); those rows are generated
// from the global ones. Rows whose default or use depends on another key name it in a
// Condition (or a sibling); such rows must come after the key they depend on.
// An EntryList may sit inside a section too ("faults.devices": its entries' keys are the rows
// "faults.devices[].<key>").
//
// A Section row ("stream", "training.injection") makes a whole section optional: absent or
// null, the rows below it are not resolved (the resolved document holds null).
//
// A key that does not apply (its Condition does not hold) is type-checked, then ignored and
// left out of the resolved document, so that sweeps can flip the deciding key; a row marked
// `allowed_only_when` instead rejects a given (non-null) value.
#pragma once

#include <any>
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "input/units.hpp"

namespace edgetrain::scenario {

using input::Unit;  // a key's unit (input/units.hpp)

struct ResolveContext;  // validate.hpp

enum class ValueType {
  String,   // non-empty string
  Integer,  // integral JSON number (32 or 32.0)
  Number,   // any finite JSON number
  Boolean,
  Enum,          // one of `choices`
  Quantity,      // number in the base unit of `unit`, or string with a unit ("500ms")
  IntList,       // list of integers; each element obeys `range`
  Path,          // relative to the scenario file; made absolute; must exist (file or directory)
  EntryList,     // list of objects whose keys are the rows "<path>[].<key>" (non-empty unless
                 // `may_be_empty`); an entry given as a plain string means {"<shorthand>": string}
                 // (no shorthand: entries must be objects)
  Section,       // optional object holding the rows "<path>.<key>"; null or absent = off
  Rate,          // stream rate (samples/s): number > 0, preset name, or {"dist": ..., ...}
  Literal,       // one of the JSON values `literals`, of any type (32 or "packed"); 32.0 counts as 32
  IntervalList,  // time intervals [[off_s, on_s], ...]: each bound a number of seconds or a duration
                 // string, 0 <= off_s < on_s, in time order, neither overlapping nor touching; [] = none
  Platform,      // the platform: a path, or {"file": path, "links": ..., "hosts": ..., fleet keys}
                 // (platform_source.hpp resolves it, reading the file)
  SiteMap,       // aggregator hosts and their devices: {"AGG-HOST": device selector or list of device
                 // names, ...} (resolved by the row's `resolve`, against the platform and the devices)
  Object,        // a JSON object kept as given (a Python policy's keyword arguments), checked by the row's `resolve`
};

enum class PathKind { File, Directory };

// Extra rules for a String key whose value becomes a file name or a CSV cell.
enum class NameRule {
  Any,     // any non-empty string
  Run,     // the results folder's name: 1..kMaxRunNameLength of [A-Za-z0-9._-], not "." or ".."
  Device,  // a CSV cell and a mailbox name: 1..kMaxDeviceNameLength printable ASCII characters,
           // no comma or double quote, no space at either end
};
inline constexpr size_t kMaxRunNameLength = 128;
inline constexpr size_t kMaxDeviceNameLength = 64;

// Holds when the (already resolved) key `key` is a string equal to one of `values` (negated:
// a string equal to none of them).
struct Condition {
  std::string key;
  std::vector<std::string> values;
  bool negated = false;
};

struct DefaultRule {
  enum class Kind {
    Value,           // `value`
    Required,        // the user must give the key
    Null,            // null, meaning the key's `null_means` (the key is nullable)
    FileStem,        // the scenario file's name without extension
    SameAs,          // the resolved value of the sibling key `sibling` (declared earlier)
    RequiredUnless,  // null if the sibling key `sibling` (declared earlier) is set, else required
  };
  std::optional<Condition> when;  // none: always applies
  Kind kind = Kind::Required;
  nlohmann::json value;
  std::string sibling;
};

struct Range {
  std::optional<double> lo, hi;
  bool lo_open = false, hi_open = false;  // open: the bound itself is excluded
};

// How a row's resolved value reaches the typed Scenario (fill.hpp builds these from member
// pointers). The root is a Scenario* for the document's rows, a list entry's struct (DeviceSpec*,
// ...) for the rows of an entry.
struct Fill {
  // Writes the resolved value into the row's field of `root`.
  std::function<void(const std::any& root, const nlohmann::json& value)> write;
  // EntryList rows: makes the list `n` entries long and returns each entry's struct, the root of
  // the entry's own rows.
  std::function<std::vector<std::any>(const std::any& root, size_t n)> entries;
  explicit operator bool() const { return write || entries; }
};

// A key resolved by code of its own rather than by its type's checks (the sites of
// `topology.sites`): from the value as given (null: not given), its JSON path, the document
// resolved so far and the context; returns the resolved value or throws ScenarioError.
using Resolver = std::function<nlohmann::json(const nlohmann::json* given, const std::string& at,
                                              const nlohmann::json& resolved, const ResolveContext& ctx)>;

struct KeySpec {
  std::string path;
  ValueType type = ValueType::String;
  std::string description;
  Unit unit = Unit::Count;               // Quantity
  std::vector<std::string> choices;      // Enum
  std::vector<nlohmann::json> literals;  // Literal
  PathKind path_kind = PathKind::File;
  std::string shorthand;      // EntryList; empty: no plain-string entries
  std::string entry_doc;      // EntryList: how an entry is written, for messages
  bool may_be_empty = false;  // EntryList: [] is accepted
  Range range;                // Integer, Number, Quantity; IntList: every element
  // A documented upper limit (Integer, IntList elements, Quantity), with why it is there; kept
  // apart from `range` so messages name the limit and its reason. Durations get one by default
  // (util::kMaxTimeS), and a lower limit of util::kClockResolutionS for values > 0.
  std::optional<double> max;
  std::string max_why;
  std::optional<size_t> max_entries;      // IntList: at most this many entries ...
  std::string max_entries_why;            // ... because of this
  NameRule name_rule = NameRule::Any;     // String
  std::optional<size_t> list_size;        // IntList: exact length
  bool nullable = false;                  // null is accepted; a given null counts as not given
  std::string null_means = "no limit";    // nullable: what null stands for, for documentation
  // Section: null turns a mechanism off, and the section given (even with only default keys) turns it
  // on, so a null section is not its keys' defaults (privacy.dp); `edgetrain compare` tells them apart.
  bool null_is_off = false;
  bool wide_unsigned = false;             // Integer: may go up to 2^64-1 (seeds); else int64
  bool whole = false;                     // Quantity: a whole number of the base unit (stored as integer)
  std::optional<Condition> exists_when;   // Path: must exist only when this holds (else only resolved)
  std::optional<Condition> applies_when;  // otherwise the key is validated but ignored
  bool error_unless_applies = false;      // ... or, with this, given (non-null) is an error
  std::vector<DefaultRule> defaults;      // first rule whose `when` holds; none: required
  // Per-device rows ("devices[].stream.rate"): the global key they override ("stream.rate").
  // For a Section row, the entry's section is the global section's raw keys with the entry's
  // own keys merged over them, and is on when either is given (an own null turns it off).
  std::string inherits;
  // The sibling key this key takes precedence over when set ("trace" over "rate"). In a
  // per-device section, an entry that gives its own sibling (and not this key) does not
  // inherit this key: the more specific setting wins.
  std::string overrides;
  // A row documenting a part of another key's value ("platform.links.<link>.bandwidth" inside
  // "platform", "devices.class" inside a selector): checked by that key's resolver with this row's
  // type and range, never resolved on its own.
  bool part_of_value = false;
  std::string type_doc;        // the table's type column, when the type's own words do not fit
  bool host_selector = false;  // EntryList: may also be a selector object naming platform hosts
  // The typed field the value fills. None: a section whose rows fill its struct, a part of
  // another key's value, or the global `stream` (each device's stream fills the typed scenario).
  Fill fill;
  Resolver resolve;  // set: resolves the value instead of the type's checks

  // Builders, so each key file reads as one line of settings per key.
  KeySpec& def(nlohmann::json v);
  KeySpec& def_if(Condition when, nlohmann::json v);
  KeySpec& required();
  KeySpec& required_if(Condition when);
  KeySpec& no_limit();                       // nullable, default null (no limit)
  KeySpec& null_default(std::string means);  // nullable, default null meaning `means`
  KeySpec& or_null(std::string means);       // nullable (null = not given), no default added
  KeySpec& off_when_null(std::string means);  // null_default, and `null_is_off`
  KeySpec& required_unless(std::string sibling);
  KeySpec& takes_precedence_over(std::string sibling);
  KeySpec& whole_number();
  KeySpec& default_file_stem();
  KeySpec& same_as(std::string sibling);
  KeySpec& only_when(Condition when);
  KeySpec& allowed_only_when(Condition when);     // like only_when, but given otherwise is an error
  KeySpec& must_exist_only_when(Condition when);  // `exists_when`
  KeySpec& at_least(double lo);
  KeySpec& above(double lo);
  KeySpec& at_most(double hi);
  KeySpec& below(double hi);
  KeySpec& size(size_t n);
  KeySpec& wide();
  KeySpec& empty_allowed();                           // EntryList: [] is accepted
  KeySpec& limit(double hi, std::string why);         // `max`
  KeySpec& entries_limit(size_t n, std::string why);  // `max_entries`
  KeySpec& names(NameRule rule);                      // `name_rule`
  KeySpec& part_of(std::string type_words = "");      // `part_of_value`, `type_doc`
  KeySpec& selects_hosts();                           // `host_selector`
  KeySpec& resolved_by(Resolver r);                   // `resolve`

  // The field the row fills (defined in fill.hpp, which key files include). `path` is member
  // pointers from the root (&Scenario::training, &TrainingSpec::lr), or a Place then member
  // pointers; the resolved value is converted to the member's type (string, integers, double,
  // bool, path, vectors, optional: null is empty; an optional struct is a section, on or off).
  template <class... Path>
  KeySpec& fills(Path... path);
  // The same with a conversion of its own: convert(resolved value) returns the member's value.
  template <class Convert, class... Path>
  KeySpec& fills_by(Convert convert, Path... path);
  // EntryList: the vector of entry structs at `path`, one per entry.
  template <class... Path>
  KeySpec& fills_entries(Path... path);
  // Anything else: write(Root& root, resolved value), given the whole root.
  template <class Root, class Write>
  KeySpec& fills_root(Write write);
};

// A check across keys (uniqueness, "at least one of"), run on the resolved document.
struct Rule {
  std::string path;                                           // where the message points ("stop", "devices")
  std::string description;                                    // for the documentation
  std::function<void(const nlohmann::json& resolved)> check;  // throws ScenarioError
};

// Stream rates: the accepted object forms and the named presets (the ScaDLES rate sets).
struct RateForm {
  std::string dist;                 // "constant", "uniform", "normal", "list"
  std::vector<std::string> params;  // keys besides "dist", all required
};
struct RatePreset {
  std::string name;         // "S1", ...
  nlohmann::json resolved;  // its object form, e.g. {"dist": "uniform", "mean": 38, "spread": 24}
};
const std::vector<RateForm>& rate_forms();
const std::vector<RatePreset>& rate_presets();
const RatePreset* find_rate_preset(std::string_view name);
// Every key a rate object may hold ("dist" first), for messages and --set.
const std::vector<std::string>& rate_keys();
// A resolved rate in words: "uniform, mean 38, spread 24"; a preset: "S1 (uniform, mean 38,
// spread 24)"; a constant: "10".
std::string rate_text(const nlohmann::json& resolved_rate);

// The table, in declaration order (which is also validation order): keys/table.cpp.
const std::vector<KeySpec>& schema_keys();
const std::vector<Rule>& schema_rules();

// The row with exactly this path ("training.lr", "devices[].host"), or null.
const KeySpec* find_key(std::string_view path);
// True if some row lies below `path` ("training", "dataset.partition", "devices[]").
bool is_section(std::string_view path);
// Names directly below a section ("" = top level), in table order, without "[]".
std::vector<std::string> child_names(std::string_view section);

// Phrases generated from a row, shared by messages and documentation.
std::string condition_text(const Condition& c);  // "dataset.name is fashion-mnist or mnist", "... is not none"
// The same, with a key inside `section` ("devices[]") named by its JSON path (`at_prefix`,
// "devices[2]."): "devices[2].stream.buffer.policy is drop-oldest or drop-newest".
std::string condition_text_at(const Condition& c, const std::string& section, const std::string& at_prefix);
// The JSON path of the schema key `key` seen from `section` as above: "devices[].stream.rate"
// is "devices[2].stream.rate"; a key outside the section keeps its schema path.
std::string key_at(const std::string& key, const std::string& section, const std::string& at_prefix);
std::string range_text(const KeySpec& key);  // "> 0", "in [0, 1)", "> 0 s" (Quantity), "" if unbounded
// A duration key's lower limit: "at least 1us (the simulator's clock resolution)", or "0 or at
// least 1us (...)" when 0 is allowed; "" for other keys.
std::string clock_text(const KeySpec& key);
// The upper limit: "at most 1000000 (why)"; "" without one.
std::string limit_text(const KeySpec& key);
// True for the keys clock_text applies to (durations: Quantity in seconds).
bool is_duration(const KeySpec& key);
std::string integer_text(const KeySpec& key);   // "a positive integer", "an integer in [2, 1000]"
std::string type_text(const KeySpec& key);      // "duration (s)", "enum", "list of integers"
std::string literals_text(const KeySpec& key);  // Literal: "32 or \"packed\""
std::string default_text(const KeySpec& key);   // "`32`", "required", "`null` (no limit)"

// The whole schema as a Markdown table (key, type/unit, default, description) followed by the
// cross-key rules and the accepted unit spellings; for docs/reference/scenario-keys.md and `edgetrain schema`.
std::string schema_markdown();

}  // namespace edgetrain::scenario
