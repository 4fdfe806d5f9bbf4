// See topology.hpp.
#include "scenario/keys/topology.hpp"

#include <map>

#include "input/text.hpp"
#include "scenario/error.hpp"
#include "scenario/keys/compression.hpp"
#include "scenario/keys/sites.hpp"
#include "scenario/rows.hpp"
#include "scenario/validate.hpp"

namespace edgetrain::scenario::keys {
namespace {

using nlohmann::json;

// topology.sites, given or derived from the platform: written out in full (sites.hpp).
json resolve_site_map(const json* given, const std::string& at, const json& resolved, const ResolveContext& ctx) {
  return resolve_sites(given, at, resolved.at("devices"), ctx.platform->info(),
                       resolved.at("server").get<std::string>(), ctx.platform->file());
}

// The resolved sites ({"AGG-HOST": [device names]}, null when not hierarchical) with their
// members by device index, from the devices filled before them.
void sites_by_index(Scenario& s, const json& sites) {
  s.topology.sites.clear();
  if (sites.is_null()) return;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < s.devices.size(); ++i) index[s.devices[i].name] = i;
  for (const auto& [host, names] : sites.items()) {
    SiteSpec& site = s.topology.sites.emplace_back();
    site.host = host;
    for (const auto& n : names) site.members.push_back(index.at(n.get<std::string>()));
  }
}

// What gossip runs refuse (the topology.kind rule): every peer runs synchronous iterations with its
// neighbours, without faults.
void gossip_limits(const nlohmann::json& r) {
  const auto& t = r.at("training");
  const auto& mode = t.at("mode").get_ref<const std::string&>();
  auto refuse = [](const std::string& what) { throw ScenarioError("topology.kind: gossip does not support " + what); };
  if (applies_on_arrival(t)) {
    refuse("updates applied on arrival (training.mode " + mode +
           (mode == "async" ? std::string() : std::string(" with aggregation async")) +
           "): every peer runs synchronous iterations with its neighbours");
  }
  if (mode == "scadles") refuse("training.mode scadles (its weights and learning rate span the fleet's round)");
  if (!r.at("faults").is_null()) refuse("faults (set faults to null)");
  if (is_given(t, "round_timeout_s")) {
    refuse("training.round_timeout_s (a peer waits for each neighbour's model)");
  }
  if (is_given(t, "selection") && t.at("selection").at("kind") != "all") {
    refuse("a random training.selection (every peer trains every iteration)");
  }
}

}  // namespace

std::vector<KeySpec> topology_rows() {
  const Condition hierarchical = when("topology.kind", {"hierarchical"});
  const Condition gossip = when("topology.kind", {"gossip"});
  std::vector<KeySpec> topology = {
      enum_key("topology.kind", {"flat", "hierarchical", "gossip"},
               "How devices reach the model: flat = every device sends to the server; hierarchical = devices send "
               "to their site's aggregator, which aggregates its members for `site_rounds` rounds and sends the "
               "site's model delta to the server (HierFAVG); gossip = no server: each device's peer applies its "
               "device's update, sends its model to its neighbours in `topology.graph` and averages what it "
               "receives with Metropolis-Hastings weights (decentralised SGD, see \"Decentralised gossip\").")
          .def("flat")
          .fills(&Scenario::topology, &TopologySpec::kind),
      enum_key("topology.graph", {"ring", "torus", "random-k", "complete", "platform-neighbours"},
               "Gossip: who exchanges models with whom. ring = device i with i-1 and i+1 (scenario order); torus = "
               "an r x c grid with wrap-around, r x c = the number of devices, r the largest divisor <= sqrt(n); "
               "random-k = each device links to `degree` others drawn uniformly (seeded, drawn again until "
               "connected); complete = everyone (exact averaging); platform-neighbours = devices of the same site "
               "(host property `site`, else the same netzone) all linked, the sites chained by their first "
               "devices.")
          .only_when(gossip)
          .def("ring")
          .fills(&Scenario::topology, &TopologySpec::graph),
      integer_key("topology.degree", "Gossip random-k: links each device draws (at most the number of devices - 1).")
          .only_when(when("topology.graph", {"random-k"}))
          .at_least(1)
          .limit(1e6, "a million devices")
          .def(3)
          .fills(&Scenario::topology, &TopologySpec::degree),
      row("topology.sites", ValueType::SiteMap,
          "Hierarchical: each site aggregator's host and its devices, as {\"AGG-HOST\": selector or list of "
          "device names}. Every device belongs to exactly one site.")
          .allowed_only_when(hierarchical)
          .null_default("derived from the platform: hosts with role `site-aggregator`, devices by their `site` "
                        "property (generated fleets)")
          .resolved_by(resolve_site_map)
          .fills_root<Scenario>(sites_by_index),
      integer_key("topology.site_rounds", "Hierarchical: synchronous rounds each site runs per cloud round.")
          .allowed_only_when(hierarchical)
          .at_least(1)
          .limit(1e6, kWhyCount)
          .def(1)
          .fills(&Scenario::topology, &TopologySpec::site_rounds),
      enum_key("topology.cloud_aggregation", {"sync", "async"},
               "Hierarchical: sync = cloud rounds (every site's delta, or training.round_timeout_s, then the "
               "weighted average); async = each site's delta applied on arrival, scaled by the site's share of the "
               "devices, and the site sent the new model at once.")
          .allowed_only_when(hierarchical)
          .def("sync")
          .fills(&Scenario::topology, &TopologySpec::cloud_aggregation),
      section_key("topology.site_compression",
                  "Hierarchical: the compressor of each site's model delta to the server (site -> cloud). Same keys, "
                  "defaults and rules as `compression.*` (no `adaptive`).")
          .allowed_only_when(hierarchical)
          .null_default("the dense fp32 delta"),
  };
  std::vector<KeySpec> site = compressor_copy_rows("topology.site_compression");
  place_rows(site, place(&Scenario::topology, &TopologySpec::site_compression));
  for (auto& r : site) {
    r.description = "Site -> cloud " + r.description.substr(r.description.find(' ') + 1);
    topology.push_back(std::move(r));
  }
  return topology;
}

std::vector<Rule> topology_rules() {
  return {
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
         if (applies_on_arrival(t)) {
           throw ScenarioError(
               "topology.kind: hierarchical needs synchronous rounds at the sites (training.mode "
               "sync, scadles, or local-sgd with aggregation sync), not updates applied on arrival");
         }
         if (is_given(t, "injection")) {
           throw ScenarioError("training.injection: not supported with topology.kind hierarchical (set it to null)");
         }
       }},
  };
}

std::optional<std::string> selection_scope(const TopologySpec& t) {
  if (t.gossip()) return std::nullopt;
  return t.hierarchical() ? " per site" : "";
}

std::vector<std::pair<std::string, std::string>> topology_lines(const Scenario& s, const std::string& up,
                                                                const std::string& down) {
  // The topology, and in a hierarchy what each hop carries (uplink and downlink are the devices' hops).
  const TopologySpec& t = s.topology;
  if (t.hierarchical()) {
    constexpr size_t kSitesShown = 8;
    std::string sites;
    for (size_t i = 0; i < t.sites.size() && i < kSitesShown; ++i) {
      const size_t m = t.sites[i].members.size();
      sites += (i ? ", " : "") + t.sites[i].host + " (" + std::to_string(m) + (m == 1 ? " device)" : " devices)");
    }
    if (t.sites.size() > kSitesShown) sites += ", ... (" + std::to_string(t.sites.size() - kSitesShown) + " more)";
    const json& site = s.resolved.at("topology").at("site_compression");
    return {{"topology", "hierarchical, " + std::to_string(t.sites.size()) + " sites: " + sites + "; " +
                             std::to_string(t.site_rounds) + " site round" + (t.site_rounds == 1 ? "" : "s") +
                             " per cloud round, cloud aggregation " + t.cloud_aggregation},
            {"hops", "device -> site " + up + "; site -> device " + down + "; site -> cloud " +
                         (site.is_null() ? std::string("dense fp32 delta") : compressor_text(site)) +
                         "; cloud -> site dense model (always)"}};
  }
  if (t.gossip()) {
    return {{"topology", "gossip over a " + t.graph +
                             " graph (no server: each device's peer averages with its "
                             "neighbours; dense models between peers)"}};
  }
  return {{"topology", "flat (every device to the server)"}};
}

// A hierarchy compresses each hop on its own: compression.* is the device -> site hop, the site uplink
// to the cloud is topology.site_compression (dense by default), the cloud -> site model always dense.
void topology_warnings(const Scenario& s, std::vector<std::string>& out) {
  if (!s.topology.hierarchical() || s.compression.uplink.kind == "none" || s.topology.site_compression.kind != "none")
    return;
  out.push_back("topology.site_compression: null (dense fp32 deltas) while compression.kind " +
                s.compression.uplink.kind +
                " compresses only the device -> site hop: each site's delta crosses its uplink to the cloud dense (and "
                "the cloud -> site model is always dense; see docs/explanation/hierarchical.md), set "
                "topology.site_compression, e.g. to the same keys as compression");
}

}  // namespace edgetrain::scenario::keys
