// Compressors as people name them ("int8", "topk-1%"): each an alias of a kind of the kinds table
// with the settings it fixes. The scenario expands an alias before it validates (a kind and its
// settings, as if written out), and names the alias back beside a resolved compressor.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace edgetrain::compress {

struct Alias {
  std::string kind;                                     // the kinds table's row that implements it
  std::vector<std::pair<std::string, double>> settings;  // scenario keys it fixes ("levels", 127)
};

// The alias `name` stands for; nullopt when it is none. Patterns carry their number:
// "topk-0.5%" is topk with ratio 0.005. ConfigError on "kind" when a pattern's number is out of
// range ("topk-150%").
std::optional<Alias> alias_named(const std::string& name);

// Every alias with what it means, one "name = kind, setting value" phrase each, patterns written
// with their placeholder ("topk-P%"): for the schema's description of `kind` and the docs.
std::vector<std::string> alias_legend();

// The aliases' names, patterns with their placeholder ("topk-P%"), for messages.
std::vector<std::string> alias_names();

// The fixed-name alias (not a pattern) a kind with these settings is known by: "int8" for qsgd at
// 127 levels, "" when none. `setting` reads a resolved key's value (nullopt: not set).
std::string alias_of(const std::string& kind, const std::function<std::optional<double>(const std::string&)>& setting);

}  // namespace edgetrain::compress
