// See population.hpp.
#include "scenario/keys/population.hpp"

#include "scenario/error.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> population_rows() {
  return {
      section_key("population",
                  "A fleet description's devices as a population: records, placed on host slots of their site "
                  "when a round selects them, rather than each a host of its own (docs/how-to/populations.md).")
          .null_default("every device on a host of its own"),
      enum_key("population.hosts", {"per-device", "slots"},
               "per-device: every device is a host of the platform (as without this section); slots: the platform "
               "holds, per site, `slots_per_site` host slots, and a device selected for a round is placed on a free "
               "slot of its site, its speed and access links set from its record. Needs a fleet description as "
               "`platform`, the flat topology and round-based training.")
          .def("per-device")
          .fills(&Scenario::population_hosts),
      integer_key("population.slots_per_site",
                  "Host slots per site (at most the site's devices). A round that finds no free slot in a device's "
                  "site (devices of earlier rounds still at work hold them) ends the run as failed, saying so.")
          .at_least(1)
          .limit(1e7, "far more devices than a round takes part")
          .null_default("the most devices a round selects (training.selection), or every device of the site")
          .fills(&Scenario::slots_per_site),
  };
}

namespace {

// What a population on slots does not support (yet): each one line naming its key.
void slot_limits(const nlohmann::json& r) {
  const auto& p = r.at("population");
  if (p.is_null() || p.at("hosts") != "slots") return;
  auto refuse = [](const std::string& key, const std::string& what) {
    throw ScenarioError(key + ": not with population.hosts \"slots\" (" + what + ")");
  };
  if (r.at("topology").at("kind") != "flat") refuse("topology.kind", "populations run the flat topology");
  const auto& t = r.at("training");
  if (applies_on_arrival(t))
    refuse("training.mode", "populations take part in synchronous rounds; async runs every device at once");
  if (t.at("mode") == "scadles")
    refuse("training.mode", "scadles batches follow streams, which populations do not have");
  if (is_given(r, "stream")) refuse("stream", "a device's stream would run while it is not placed");
  if (is_given(t, "injection")) refuse("training.injection", "data injection shares a stream's samples");
}

}  // namespace

std::vector<Rule> population_rules() {
  return {{"population.hosts",
           "With `slots`: the flat topology, synchronous rounds (sync or local-sgd with sync aggregation), no "
           "stream or data injection.",
           slot_limits}};
}

}  // namespace edgetrain::scenario::keys
