// A sweep file: a base scenario and what to vary. `grid` gives values per dotted key (every
// combination, the first key varying slowest, as nested loops in the file's order), `runs` an
// explicit list of override sets; with both, every grid combination is crossed with every run
// (grid outer, runs inner). The expansion is the list of runs in that order, each with its
// overrides in the order of `varied` (the grid keys in file order, then the keys of `runs` in the
// order they first appear). A `runs` entry may name itself with "label" (not a scenario key): the
// figures draw one line per label, and sweep.csv has a label column.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "util/input_error.hpp"

namespace edgetrain::sweep {

// A sweep file that cannot be used: the message names the file and the key.
class SweepError : public std::runtime_error, public util::InputError {
 public:
  using std::runtime_error::runtime_error;
};

// One override: a dotted scenario key and its JSON value (as `--set key=<value as JSON>`).
using Override = std::pair<std::string, nlohmann::json>;
using Overrides = std::vector<Override>;

// The most runs one sweep may hold (grid combinations x explicit runs): checked before the grid is
// expanded. Planning checks each run's scenario at about 5,000 runs per second, so 10^6 runs take
// minutes to plan and hours to run on a workstation; a larger study is several sweeps.
inline constexpr size_t kMaxSweepRuns = 1000000;

// A run's label (`runs[].label`): how figures and tables name it. Printable, at most this long.
inline constexpr size_t kMaxLabelLength = 60;

struct SweepSpec {
  std::filesystem::path file;  // the sweep file, absolute
  std::filesystem::path base;  // the base scenario, absolute (relative paths: from the sweep file's folder)
  std::vector<std::string> varied;
  std::vector<std::string> grid_keys;  // the keys of `grid`, in file order (the start of `varied`)
  std::vector<Overrides> runs;  // the expansion
  // Per run of the expansion: the label of the `runs` entry it came from ("" for none).
  std::vector<std::string> labels;
  bool labelled() const;
};

// Expands `grid` (an object of key -> non-empty list, or null) and `runs` (a list of objects, or
// null) as described above. Throws SweepError naming `shown` (the file) and the key at fault, and
// for more than kMaxSweepRuns runs, with their count, before expanding.
SweepSpec expand(const nlohmann::ordered_json& grid, const nlohmann::ordered_json& runs, const std::string& shown);

// Reads a sweep file (JSON, comments allowed): {"base": PATH, "grid": {...}, "runs": [...]}.
SweepSpec load_sweep(const std::filesystem::path& file);

// "key=value" for `--set` and `load_scenario`: the value as compact JSON, which --set reads back
// as the same JSON value ("training.mode=\"sync\"", "training.lr=0.1").
std::string set_text(const Override& o);

// "training.mode=sync seed=1": the overrides for people (strings unquoted).
std::string describe(const Overrides& overrides);

// A varied value as a CSV cell: strings as they are, anything else as compact JSON.
std::string cell_text(const nlohmann::json& value);

}  // namespace edgetrain::sweep
