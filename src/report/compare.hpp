// `edgetrain compare`: runs side by side (time to target, rounds, bytes each way, final and best
// accuracy, energy where a run knows it), the speed-up of each against the first, and the keys in
// which their resolved scenarios differ (dotted paths, as --set spells them). Reads only the
// results folders' summary.json and scenario.json; no SimGrid, no LibTorch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/input_error.hpp"

namespace edgetrain::report {

class CompareError : public std::runtime_error, public util::InputError {
 public:
  using std::runtime_error::runtime_error;
};

struct RunRecord {
  std::string folder;  // as the user gave it
  nlohmann::json summary, scenario;
};

// Reads FOLDER/summary.json and FOLDER/scenario.json; CompareError naming the file otherwise.
RunRecord load_run_record(const std::filesystem::path& folder);

// What a results file may be: at most kMaxRunFileBytes (a regular file), nested at most
// kMaxRunFileDepth levels. parse_run_file parses the text of one, named `shown` in its CompareError.
inline constexpr uintmax_t kMaxRunFileBytes = 16u << 20;
inline constexpr size_t kMaxRunFileDepth = 64;
nlohmann::json parse_run_file(const std::string& text, const std::string& shown);

// Every leaf of a JSON document by dotted path (`training.lr`, `devices.0.host`); empty objects and
// arrays are leaves of their own.
std::map<std::string, nlohmann::json> flatten(const nlohmann::json& document);

struct Comparison {
  struct Figure {
    std::string key;                                    // the summary.json key (or "speedup")
    std::string label;                                  // how the text table names it
    std::vector<std::optional<nlohmann::json>> values;  // one per run; nullopt when the run lacks it
  };
  std::vector<std::string> folders;
  std::vector<Figure> figures;
  std::string speedup_basis;                   // "time_to_target_s" or "sim_time_s"
  std::vector<std::optional<double>> speedup;  // the first run's basis over each run's
  // Differing keys; `*` for list indices when every entry of the list changed alike.
  struct Difference {
    std::string key;
    std::vector<std::optional<nlohmann::json>> values;  // one per run; nullopt: absent, with no default
    std::vector<bool> defaulted;  // the run's scenario.json lacks the key: the value is its default
  };
  std::vector<Difference> differences;
};

// The default a key (dotted path) takes in a resolved scenario that lacks it; nullopt when it has none.
// The command passes scenario::schema_default (this module knows no schema).
using DefaultOf = std::function<std::optional<nlohmann::json>(const std::string& key, const nlohmann::json& scenario)>;

// Whether a section (dotted path) is one whose null turns a mechanism off (`privacy.dp`): the command
// passes scenario::null_is_off.
using IsSwitch = std::function<bool(const std::string& section)>;

// The comparison of `runs` (at least one), in their order; the first is the reference. With
// `default_of`, a key one run lacks is compared by its default there, so only keys that differ once
// defaults are applied are listed; a section left null (`"compression": null`) counts as its keys'
// defaults, except a switch (`is_switch`): a run with it null (or under a null section) has it "off",
// one that gives it "on", and where runs differ so, the section is a row of its own; its keys are
// compared among the runs where it is on.
Comparison compare_runs(const std::vector<RunRecord>& runs, const DefaultOf& default_of = {},
                        const IsSwitch& is_switch = {});

// A table for the terminal; at most `max_differences` differing keys unless 0 (all).
std::string format_text(const Comparison& c, size_t max_differences);
// The same as JSON: {"runs": [...], "figures": {key: [...]}, "speedup": {...}, "differences": {key: [...]}}.
nlohmann::json to_json(const Comparison& c);

}  // namespace edgetrain::report
