// What differs between two resolved scenarios (the `scenario.json` of two runs), key by key, with
// each key written as its dotted path, as `--set` spells it ("training.lr", "devices.3.host").
// For the notice of a run that replaces another scenario's results, and for comparing runs.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace edgetrain::scenario {

struct Difference {
  std::string path;                      // dotted path of the key
  std::optional<nlohmann::json> before;  // empty: the key was absent
  std::optional<nlohmann::json> after;   // empty: the key is absent now
};

// Every key whose value differs (JSON Patch of nlohmann::json::diff, RFC 6902), in key order;
// numbers compare by value (1 equals 1.0). Empty when the documents are equal.
std::vector<Difference> differences(const nlohmann::json& before, const nlohmann::json& after);

// "training.lr 0.05 -> 0.1", values as compact JSON cut to about 60 characters, "(absent)" for a
// missing key.
std::string difference_text(const Difference& difference);

// The first `shown` differences joined by ", ", values changed before keys added or removed (those
// mostly follow from a changed value, e.g. another mode's keys), then "and N more".
std::string differences_text(const std::vector<Difference>& differences, size_t shown = 3);

}  // namespace edgetrain::scenario
