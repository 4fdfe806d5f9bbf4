// The topology's keys (`topology`: flat, hierarchical with its sites, gossip with its graph) and the
// rule of what each topology supports; and what `edgetrain validate` says and warns of the topology,
// so that the rest of src/scenario names none.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario {
struct Scenario;
struct TopologySpec;
}  // namespace edgetrain::scenario

namespace edgetrain::scenario::keys {

std::vector<KeySpec> topology_rows();  // topology.*: after devices and server, which the sites name
std::vector<Rule> topology_rules();

// describe(): how client selection is worded under this topology: empty when it has no server
// rounds to select devices for, else what the counts are per ("", or " per site").
std::optional<std::string> selection_scope(const TopologySpec& t);
// describe(): the topology's lines (label, text), after the devices' uplink and downlink
// compressors `up` and `down` in words.
std::vector<std::pair<std::string, std::string>> topology_lines(const Scenario& s, const std::string& up,
                                                                const std::string& down);
// warnings(): the topology's, appended to `out` (warnings.hpp).
void topology_warnings(const Scenario& s, std::vector<std::string>& out);

}  // namespace edgetrain::scenario::keys
