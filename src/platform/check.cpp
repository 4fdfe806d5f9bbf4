// See check.hpp. One pass over the XML tree, zone by zone, with what SimGrid would have built so
// far (netpoints, links, routes) so that references and duplicates are checked in file order,
// as SimGrid's own parser meets them.
#include "platform/check.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <pugixml.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "platform/bounds.hpp"
#include "platform/units.hpp"
#include "platform/wattage.hpp"
#include "util/format.hpp"
#include "util/memory.hpp"
#include "util/read_input.hpp"

namespace edgetrain::platform {
namespace {

// A factor of a cluster's topo_parameters: beyond it products could overflow (memory refuses long before).
constexpr int64_t kMaxFactor = 1000000000;

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<Routing> parse_routing(std::string_view s) {
  for (Routing r : {Routing::Full, Routing::Floyd, Routing::Dijkstra, Routing::DijkstraCache, Routing::Cluster,
                    Routing::None, Routing::Vivaldi, Routing::Wifi}) {
    if (iequals(s, routing_name(r))) return r;
  }
  return std::nullopt;
}

// A plain non-negative decimal integer (SimGrid's stoi would take "2abc" as 2).
std::optional<int64_t> parse_count(std::string_view s) {
  if (s.empty() || s.size() > 12) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t end = s.find(sep, start);
    out.emplace_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

// One zone being read: what SimGrid's zone of that routing kind accepts depends on it.
struct ZoneState {
  ZoneRef ref;
  int line = 0;
  std::map<std::string, std::string> props;
  std::vector<std::string> hosts;       // declared directly in this zone
  std::vector<std::string> routers;     // declared directly in this zone
  std::set<std::string> linked_hosts;   // Cluster zones: hosts given a <host_link> or a <cabinet>
  std::vector<std::string> wifi_links;  // Wifi zones
  std::vector<double> wifi_rates;
  std::set<std::pair<std::string, std::string>> routes;  // (src, dst) already declared
};

class Checker {
 public:
  Checker(std::string_view xml, std::string shown_name, const CheckLimits& limits)
      : xml_(xml), name_(std::move(shown_name)), limits_(limits) {
    for (size_t i = 0; i < xml.size(); ++i)
      if (xml[i] == '\n') newlines_.push_back(i);
  }

  PlatformInfo run() {
    pugi::xml_document doc;
    const pugi::xml_parse_result parsed =
        doc.load_buffer(xml_.data(), xml_.size(), pugi::parse_default | pugi::parse_doctype);
    if (!parsed) {
      throw PlatformFileError(name_ + ":" + std::to_string(line_at(parsed.offset)) +
                              ": not well-formed XML: " + parsed.description());
    }
    const pugi::xml_node root = doc.document_element();
    if (std::string_view(root.name()) != "platform") {
      fail(root, "the root element must be <platform>, not <" + std::string(root.name()) + ">");
    }
    check_version(root);
    // SimGrid's parser needs the DOCTYPE (pugixml keeps no comment or declaration nodes here).
    bool doctype = false;
    for (pugi::xml_node n = doc.first_child(); n && n != root; n = n.next_sibling()) {
      doctype = doctype || n.type() == pugi::node_doctype;
    }
    if (!doctype) {
      fail(root, "SimGrid needs <!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\"> before <platform>");
    }
    bool seen_platform_element = false;
    pugi::xml_node top_zone;  // SimGrid 3.32 builds one top-level zone; a second has no parent and fails
    for (const pugi::xml_node& child : root.children()) {
      if (child.type() != pugi::node_element) continue;
      const std::string_view tag = child.name();
      if (tag == "config") {
        if (seen_platform_element) fail(child, "<config> must come before every zone, host and link");
        read_config(child);
        continue;
      }
      if (tag == "zone" || tag == "AS" || tag == "cluster" || tag == "cabinet" || tag == "peer") {
        if (top_zone) {
          fail(child, what(child) + " beside " + what(top_zone) + " (line " + line_of(top_zone) +
                          "): SimGrid 3.32 takes one top-level zone; put both inside one <zone>");
        }
        top_zone = child;
      }
      seen_platform_element = true;
      element(child);
    }
    return std::move(info_);
  }

 private:
  int line_at(ptrdiff_t offset) const {
    return 1 + static_cast<int>(std::lower_bound(newlines_.begin(), newlines_.end(), static_cast<size_t>(offset)) -
                                newlines_.begin());
  }

  [[noreturn]] void fail(const pugi::xml_node& node, const std::string& message) const {
    throw PlatformFileError(name_ + ":" + std::to_string(line_at(node.offset_debug())) + ": " + message);
  }

  // `<tag> "id"` or `<tag>` for messages.
  static std::string what(const pugi::xml_node& node) {
    const char* id = node.attribute("id").value();
    const std::string tag = node.name();
    return *id ? tag + " " + in_quotes(id) : "<" + tag + ">";
  }

  std::string required(const pugi::xml_node& node, const char* attribute) const {
    const pugi::xml_attribute a = node.attribute(attribute);
    if (!a) fail(node, what(node) + ": attribute " + attribute + " is required");
    return a.value();
  }

  std::string id_of(const pugi::xml_node& node) const {
    std::string id = required(node, "id");
    if (id.empty()) fail(node, "<" + std::string(node.name()) + ">: id must not be empty");
    return id;
  }

  void only_known_attributes(const pugi::xml_node& node, std::initializer_list<std::string_view> known) const {
    for (const pugi::xml_attribute& a : node.attributes()) {
      if (std::find(known.begin(), known.end(), std::string_view(a.name())) == known.end()) {
        fail(node, what(node) + ": unknown attribute " + a.name());
      }
    }
  }

  double quantity(const pugi::xml_node& node, const char* attribute, const std::string& text, Quantity kind,
                  bool zero_allowed) const {
    const std::optional<double> v = parse_quantity(text, kind);
    if (!v) fail(node, what(node) + ": " + attribute + " must be " + expected_form(kind) + ", got " + in_quotes(text));
    if (*v < 0 || (*v == 0 && !zero_allowed)) {
      fail(node, what(node) + ": " + attribute + (zero_allowed ? " must be >= 0" : " must be > 0") + ", got " +
                     in_quotes(text));
    }
    // The what-if keys' bounds (bounds.hpp); a 0 where it is allowed (a latency, a pstate not in use) stays.
    const double bits = kind == Quantity::Bandwidth ? 8 : 1;  // parse_quantity gives bytes per second
    const auto [low, high, unit] = kind == Quantity::Speed       ? std::tuple(kMinSpeedFlops, kMaxSpeedFlops, "f")
                                   : kind == Quantity::Bandwidth ? std::tuple(kMinBandwidthBps, kMaxBandwidthBps, "bps")
                                                                 : std::tuple(0.0, kMaxLatencyS, "s");
    if ((*v != 0 && *v * bits < low) || *v * bits > high) {
      fail(node, what(node) + ": " + attribute + " must be " + (*v * bits < low ? "at least " : "at most ") +
                     util::format_number(*v * bits < low ? low : high) + unit + ", got " + in_quotes(text));
    }
    return *v;
  }

  double attr_quantity(const pugi::xml_node& node, const char* attribute, Quantity kind, bool zero_allowed) const {
    return quantity(node, attribute, required(node, attribute), kind, zero_allowed);
  }

  // A host's speed per pstate: SimGrid runs it at the one its pstate attribute names, which must
  // be > 0 (0 aborts the first computation); the others may be 0 (a host "booting" or asleep).
  std::vector<double> speeds(const pugi::xml_node& node, size_t active = 0) const {
    std::vector<double> out;
    for (const std::string& s : split_list(required(node, "speed"), Quantity::Speed))
      out.push_back(quantity(node, "speed", s, Quantity::Speed, out.size() != active));
    return out;
  }

  int64_t cores(const pugi::xml_node& node) const {
    const std::string text = node.attribute("core") ? node.attribute("core").value() : "1";
    const std::optional<int64_t> n = parse_count(text);
    if (!n || *n < 1) fail(node, what(node) + ": core must be a whole number >= 1, got " + in_quotes(text));
    return *n;
  }

  void check_version(const pugi::xml_node& root) const {
    const std::string v = root.attribute("version").value();
    if (v != "4" && v != "4.0" && v != "4.1") {
      fail(root, "<platform>: version must be \"4.1\" (SimGrid 3.32 reads versions 4 to 4.1), got " + in_quotes(v));
    }
  }

  // Profiles change a resource over time; edgetrain drives that itself (the scenario's faults),
  // and SimGrid aborts on a profile file it cannot read, so platforms carry none.
  void no_profiles(const pugi::xml_node& node, std::initializer_list<const char*> attributes) const {
    for (const char* a : attributes) {
      if (*node.attribute(a).value()) {
        fail(node, what(node) + ": " + a +
                       " is not supported by edgetrain: describe outages and bandwidth changes in the scenario's "
                       "faults (faults.links, faults.devices)");
      }
    }
  }

  void coordinates(const pugi::xml_node& node, bool needed) const {
    const std::string text = node.attribute("coordinates").value();
    if (text.empty()) {
      if (needed) {
        fail(node, what(node) + ": a host or router in Vivaldi zone " + in_quotes(zones_.back().ref.id) +
                       " needs coordinates=\"x y h\"");
      }
      return;
    }
    std::istringstream in(text);
    std::string word;
    int n = 0;
    while (in >> word) {
      const std::optional<double> v = parse_quantity(word, Quantity::Time);  // a bare number
      if (!v || word.find_first_not_of("+-.0123456789eE") != std::string::npos) {
        fail(node, what(node) + ": coordinates must be three numbers \"x y h\", got " + in_quotes(text));
      }
      ++n;
    }
    if (n != 3) fail(node, what(node) + ": coordinates must be three numbers \"x y h\", got " + in_quotes(text));
  }

  ZoneState& zone(const pugi::xml_node& node) {
    if (zones_.empty()) fail(node, what(node) + " must be inside a <zone>");
    return zones_.back();
  }

  void new_netpoint(const pugi::xml_node& node, const std::string& name) {
    if (!netpoints_.insert(name).second) {
      fail(node, what(node) + ": the name " + in_quotes(name) + " is already used by another host, router or zone");
    }
  }

  void new_link(const pugi::xml_node& node, const std::string& name, const std::string& policy) {
    const bool fresh = policy == "SPLITDUPLEX"
                           ? links_.count(name) + links_.count(name + "_UP") + links_.count(name + "_DOWN") == 0
                           : links_.count(name) == 0;
    if (!fresh) fail(node, what(node) + ": link " + in_quotes(name) + " is declared twice");
    const LinkPlace place{node.name(), policy, line_at(node.offset_debug())};
    links_[name] = place;
    if (policy == "SPLITDUPLEX") {
      links_[name + "_UP"] = LinkPlace{place.element, "SHARED", place.line};
      links_[name + "_DOWN"] = LinkPlace{place.element, "SHARED", place.line};
    }
  }

  void new_host(const pugi::xml_node& node, const std::string& name,
                std::map<std::string, std::string> properties = {}) {
    new_netpoint(node, name);
    HostPlace place;
    place.properties = std::move(properties);
    for (const ZoneState& z : zones_) place.zones.push_back(z.ref);
    place.line = line_at(node.offset_debug());
    place.element = node.name();
    info_.hosts[name] = std::move(place);
    info_.host_order.push_back(name);
    zones_.back().hosts.push_back(name);
  }

  // A host's (or a cluster's, for each member) energy properties; notes that the platform has some.
  void energy_properties(const pugi::xml_node& node, const std::map<std::string, std::string>& properties,
                         size_t pstates) {
    if (const std::string problem = host_wattage_problem(properties, pstates); !problem.empty()) {
      fail(node, what(node) + ": " + problem);
    }
    info_.host_energy = info_.host_energy || properties.count(kHostWattage) > 0;
  }

  std::map<std::string, std::string> props(const pugi::xml_node& node) const {
    std::map<std::string, std::string> out;
    for (const pugi::xml_node& p : node.children("prop")) {
      only_known_attributes(p, {"id", "value"});
      out[required(p, "id")] = required(p, "value");
    }
    return out;
  }

  void only_children(const pugi::xml_node& node, std::initializer_list<std::string_view> allowed) const {
    for (const pugi::xml_node& c : node.children()) {
      if (c.type() != pugi::node_element) continue;
      if (std::find(allowed.begin(), allowed.end(), std::string_view(c.name())) == allowed.end()) {
        fail(c, "<" + std::string(c.name()) + "> is not allowed inside <" + node.name() + ">");
      }
    }
  }

  void read_config(const pugi::xml_node& node) {
    only_children(node, {"prop"});
    for (const auto& [key, value] : props(node)) info_.config.emplace_back(key, value);
  }

  void element(const pugi::xml_node& node) {
    const std::string_view tag = node.name();
    if (tag == "zone" || tag == "AS") return read_zone(node);
    if (tag == "host") return read_host(node);
    if (tag == "router") return read_router(node);
    if (tag == "link") return read_link(node);
    if (tag == "backbone") return read_backbone(node);
    if (tag == "host_link") return read_host_link(node);
    if (tag == "cabinet") return read_cabinet(node);
    if (tag == "cluster") return read_cluster(node);
    if (tag == "peer") return read_peer(node);
    if (tag == "route" || tag == "zoneRoute" || tag == "ASroute" || tag == "bypassRoute" || tag == "bypassZoneRoute" ||
        tag == "bypassASroute") {
      return read_route(node);
    }
    if (tag == "prop" && !zones_.empty()) return;        // zone properties, read with the zone
    if (tag == "random" || tag == "model_prop") return;  // ignored by SimGrid 3.32 too
    if (tag == "include" || tag == "storage" || tag == "storage_type" || tag == "mount") {
      fail(node, "<" + std::string(tag) + "> was removed from SimGrid (3.18 to 3.27): SimGrid 3.32 cannot read it");
    }
    if (tag == "trace" || tag == "trace_connect") {
      fail(node,
           "<" + std::string(tag) +
               "> is not supported by edgetrain: describe outages and bandwidth changes in the scenario's faults");
    }
    if (tag == "actor" || tag == "process") {
      fail(node, "<" + std::string(tag) + "> does not belong in a platform: edgetrain starts its own actors");
    }
    if (tag == "config") fail(node, "<config> must come first, directly inside <platform>");
    fail(node, "unknown element <" + std::string(tag) + ">");
  }

  void read_zone(const pugi::xml_node& node) {
    only_known_attributes(node, {"id", "routing"});
    const std::string id = id_of(node);
    const std::string routing_text = required(node, "routing");
    const std::optional<Routing> routing = parse_routing(routing_text);
    if (!routing) {
      fail(node, what(node) +
                     ": routing must be one of Full, Floyd, Dijkstra, DijkstraCache, Cluster, None, "
                     "Vivaldi, Wifi, got " +
                     in_quotes(routing_text));
    }
    if (!zones_.empty() && zones_.back().ref.routing == Routing::Wifi) {
      fail(node, what(node) + ": a zone with routing=\"Wifi\" (one Wi-Fi cell) cannot contain zones");
    }
    check_zone_content(node);
    new_netpoint(node, id);
    zones_.push_back(open_zone(node, id, *routing));
    zones_.back().props = props(node);
    for (const pugi::xml_node& child : node.children()) {
      if (child.type() == pugi::node_element) element(child);
    }
    if (*routing == Routing::Wifi) close_wifi_zone(node);
    if (*routing == Routing::Cluster) {
      for (const std::string& h : zones_.back().hosts) {
        if (!zones_.back().linked_hosts.count(h)) {
          fail(node, what(node) + ": host " + in_quotes(h) + " of a routing=\"Cluster\" zone needs a <host_link>");
        }
      }
    }
    zones_.pop_back();
  }

  // The order of a zone's elements, as SimGrid's DTD (platform 4.1) fixes it and its parser enforces
  // with a message of its own: the zone's <prop>s first; then either a zone of zones (zone, cluster,
  // peer, link, backbone, then zoneRoute and bypassZoneRoute) or a zone of hosts (host, router,
  // cabinet, host_link, link, backbone, then route and bypassRoute); every route after the rest.
  void check_zone_content(const pugi::xml_node& zone) const {
    static const std::set<std::string_view> of_zones = {"zone", "AS", "cluster", "peer"};
    static const std::set<std::string_view> of_hosts = {"host", "router", "cabinet", "host_link"};
    static const std::set<std::string_view> zone_routes = {"zoneRoute", "ASroute", "bypassZoneRoute",
                                                           "bypassASroute"};
    static const std::set<std::string_view> host_routes = {"route", "bypassRoute"};
    pugi::xml_node kind_set_by, first_route, first_other;
    bool hosts = false;  // the kind kind_set_by gave: a zone of hosts (else of zones)
    for (const pugi::xml_node& child : zone.children()) {
      if (child.type() != pugi::node_element) continue;
      const std::string_view tag = child.name();
      if (tag == "prop") {
        if (first_other) {
          fail(child, "<prop> of " + what(zone) + " after " + what(first_other) + " (line " + line_of(first_other) +
                          "): a zone's properties come before its other elements");
        }
        continue;
      }
      if (!first_other) first_other = child;
      const bool route = zone_routes.count(tag) || host_routes.count(tag);
      if (!route && first_route && (of_zones.count(tag) || of_hosts.count(tag) || tag == "link" || tag == "backbone")) {
        fail(child, what(child) + " after " + what(first_route) + " (line " + line_of(first_route) +
                        "): SimGrid reads a zone's routes after all its other elements; move it before the first route");
      }
      if (route && !first_route) first_route = child;
      const bool for_hosts = of_hosts.count(tag) || host_routes.count(tag);
      if (!for_hosts && !of_zones.count(tag) && !zone_routes.count(tag)) continue;  // link, backbone, or unknown
      if (!kind_set_by) {
        kind_set_by = child;
        hosts = for_hosts;
      } else if (hosts != for_hosts) {
        fail(child, what(child) + " in " + what(zone) + ", which holds " + what(kind_set_by) + " (line " +
                        line_of(kind_set_by) +
                        "): a zone holds either zones, clusters and peers (joined by <zoneRoute>) or hosts and "
                        "routers (joined by <route>), not both; put them in zones of their own");
      }
    }
  }

  std::string line_of(const pugi::xml_node& node) const { return std::to_string(line_at(node.offset_debug())); }

  ZoneState open_zone(const pugi::xml_node& node, const std::string& id, Routing routing) const {
    ZoneState z;
    z.ref = ZoneRef{id, routing};
    z.line = line_at(node.offset_debug());
    return z;
  }

  void close_wifi_zone(const pugi::xml_node& node) {
    ZoneState& z = zones_.back();
    if (z.wifi_links.size() != 1) {
      fail(node, what(node) + ": a Wifi zone needs exactly one link, with sharing_policy=\"WIFI\" (it has " +
                     std::to_string(z.wifi_links.size()) + ")");
    }
    const auto ap = z.props.find("access_point");
    if (ap == z.props.end()) {
      fail(node, what(node) + ": a Wifi zone needs <prop id=\"access_point\" value=\"...\"/> naming its router");
    }
    const bool is_local_router = std::count(z.routers.begin(), z.routers.end(), ap->second) > 0;
    if (!is_local_router && std::count(z.hosts.begin(), z.hosts.end(), ap->second) == 0) {
      fail(node, what(node) + ": access_point " + in_quotes(ap->second) + " is not a host or router of this zone");
    }
    WifiZone wifi{z.ref.id, z.wifi_links.front(), ap->second, z.wifi_rates, {}, z.line};
    for (const std::string& h : z.hosts) {
      // An access point that is a host needs a rate too: SimGrid takes a route's first link's
      // rate from its source, and a route from the access point starts on the Wi-Fi link.
      wifi.stations.emplace_back(h, station_levels_.at(h));
      if (station_levels_.at(h) >= static_cast<int>(z.wifi_rates.size())) {
        throw PlatformFileError(name_ + ":" + std::to_string(info_.hosts.at(h).line) + ": host " + in_quotes(h) +
                                ": wifi_rate_level " + std::to_string(station_levels_.at(h)) + " is past the " +
                                std::to_string(z.wifi_rates.size()) + " rate levels of Wi-Fi link " +
                                in_quotes(wifi.link) + " (levels count from 0)");
      }
    }
    info_.wifi_zones.push_back(std::move(wifi));
  }

  void read_host(const pugi::xml_node& node) {
    only_known_attributes(
        node, {"id", "speed", "core", "speed_file", "availability_file", "state_file", "coordinates", "pstate"});
    only_children(node, {"prop", "disk", "mount"});
    ZoneState& z = zone(node);
    const std::string id = id_of(node);
    const std::string pstate = node.attribute("pstate") ? node.attribute("pstate").value() : "0";
    std::optional<int64_t> p = parse_count(pstate);
    if (!p && pstate.size() > 2 && pstate.substr(pstate.size() - 2) == ".0")
      p = parse_count(pstate.substr(0, pstate.size() - 2));
    const std::vector<double> pstates = speeds(node, p ? static_cast<size_t>(*p) : 0);
    if (!p || *p >= static_cast<int64_t>(pstates.size())) {
      fail(node, what(node) + ": pstate must index its list of " + std::to_string(pstates.size()) + " speed(s) (0 to " +
                     std::to_string(pstates.size() - 1) + "), got " + in_quotes(pstate));
    }
    cores(node);
    no_profiles(node, {"speed_file", "availability_file", "state_file"});
    coordinates(node, z.ref.routing == Routing::Vivaldi);
    for (const pugi::xml_node& d : node.children()) {
      if (std::string_view(d.name()) == "mount") element(d);  // removed from SimGrid
      if (std::string_view(d.name()) != "disk") continue;
      only_known_attributes(d, {"id", "read_bw", "write_bw"});
      only_children(d, {"prop"});
      props(d);
      attr_quantity(d, "read_bw", Quantity::Bandwidth, false);
      attr_quantity(d, "write_bw", Quantity::Bandwidth, false);
    }
    std::map<std::string, std::string> host_props = props(node);
    energy_properties(node, host_props, pstates.size());
    int level = 0;
    if (const auto it = host_props.find("wifi_rate_level"); it != host_props.end()) {
      const std::optional<int64_t> n = parse_count(it->second);
      if (!n) fail(node, what(node) + ": wifi_rate_level must be a whole number >= 0, got " + in_quotes(it->second));
      if (z.ref.routing != Routing::Wifi) {
        fail(node, what(node) + ": wifi_rate_level is set but the host is not in a routing=\"Wifi\" zone");
      }
      level = static_cast<int>(std::min<int64_t>(*n, 1 << 30));
    }
    new_host(node, id, std::move(host_props));
    station_levels_[id] = level;
  }

  void read_router(const pugi::xml_node& node) {
    only_known_attributes(node, {"id", "coordinates"});
    only_children(node, {});
    ZoneState& z = zone(node);
    const std::string id = id_of(node);
    coordinates(node, z.ref.routing == Routing::Vivaldi);
    new_netpoint(node, id);
    z.routers.push_back(id);
  }

  void read_link(const pugi::xml_node& node) {
    only_known_attributes(
        node, {"id", "bandwidth", "bandwidth_file", "latency", "latency_file", "state_file", "sharing_policy"});
    only_children(node, {"prop"});
    const std::map<std::string, std::string> link_props = props(node);
    ZoneState& z = zone(node);
    const std::string id = id_of(node);
    std::string policy = node.attribute("sharing_policy") ? node.attribute("sharing_policy").value() : "SHARED";
    if (policy == "FULLDUPLEX") policy = "SPLITDUPLEX";  // SimGrid's deprecated spelling
    if (policy != "SHARED" && policy != "SPLITDUPLEX" && policy != "FATPIPE" && policy != "WIFI") {
      fail(node,
           what(node) + ": sharing_policy must be SHARED, SPLITDUPLEX, FATPIPE or WIFI, got " + in_quotes(policy));
    }
    const bool wifi = policy == "WIFI";
    if (const std::string problem = link_wattage_problem(link_props, wifi); !problem.empty()) {
      fail(node, what(node) + ": " + problem);
    }
    info_.link_energy = info_.link_energy || link_props.count(kLinkWattage) > 0;
    if (wifi != (z.ref.routing == Routing::Wifi)) {
      fail(node, what(node) + (wifi ? ": a WIFI link must be inside a routing=\"Wifi\" zone"
                                    : ": a link inside a routing=\"Wifi\" zone must have sharing_policy=\"WIFI\""));
    }
    const std::vector<std::string> items = split_list(required(node, "bandwidth"), Quantity::Bandwidth);
    if (items.size() > 1 && !wifi) {
      fail(node, what(node) + ": only a WIFI link may list several bandwidths, got " +
                     in_quotes(node.attribute("bandwidth").value()));
    }
    std::vector<double> rates;
    for (const std::string& b : items) rates.push_back(quantity(node, "bandwidth", b, Quantity::Bandwidth, false));
    const double latency =
        attr_quantity(node, "latency", Quantity::Time, true);  // SimGrid 3.32 needs it despite its DTD
    if (wifi && latency != 0) {
      fail(node, what(node) + ": a WIFI link must have latency 0 (SimGrid 3.32 refuses any other), got " +
                     in_quotes(node.attribute("latency").value()));
    }
    no_profiles(node, {"bandwidth_file", "latency_file", "state_file"});
    new_link(node, id, policy);
    if (wifi) {
      z.wifi_links.push_back(id);
      z.wifi_rates = rates;
    }
  }

  void read_backbone(const pugi::xml_node& node) {
    only_known_attributes(node, {"id", "bandwidth", "latency"});
    if (zone(node).ref.routing != Routing::Cluster)
      fail(node, what(node) + " must be inside a routing=\"Cluster\" zone");
    const std::string id = id_of(node);
    attr_quantity(node, "bandwidth", Quantity::Bandwidth, false);
    attr_quantity(node, "latency", Quantity::Time, true);
    new_link(node, id, "SHARED");
  }

  void read_host_link(const pugi::xml_node& node) {
    only_known_attributes(node, {"id", "up", "down"});
    ZoneState& z = zone(node);
    if (z.ref.routing != Routing::Cluster) fail(node, what(node) + " must be inside a routing=\"Cluster\" zone");
    const std::string id = id_of(node);
    if (std::count(z.hosts.begin(), z.hosts.end(), id) == 0) {
      fail(node, what(node) + ": no host " + in_quotes(id) + " declared before it in this zone");
    }
    for (const char* dir : {"up", "down"}) {
      const std::string link = required(node, dir);
      if (!links_.count(link))
        fail(node, what(node) + ": " + dir + " link " + in_quotes(link) + " is not declared before it");
    }
    z.linked_hosts.insert(id);
  }

  std::vector<int64_t> radicals(const pugi::xml_node& node) {
    const std::string text = required(node, "radical");
    std::vector<std::pair<int64_t, int64_t>> ranges;
    double count = 0;
    for (const std::string& group : split(text, ',')) {
      const std::vector<std::string> ends = split(group, '-');
      const std::optional<int64_t> first = parse_count(ends.front());
      const std::optional<int64_t> last = ends.size() == 2 ? parse_count(ends.back()) : first;
      if (ends.size() > 2 || !first || !last || *last < *first) {
        fail(node, what(node) + ": radical must be numbers and ranges such as \"0-7,10\", got " + in_quotes(text));
      }
      ranges.emplace_back(*first, *last);
      count += static_cast<double>(*last - *first) + 1;
    }
    add_cluster_hosts(node, count);  // before a number is kept: radical="0-999999999" must not eat memory
    std::vector<int64_t> out;
    for (const auto& [first, last] : ranges) {
      for (int64_t i = first; i <= last; ++i) out.push_back(i);
    }
    return out;
  }

  // The clusters' hosts so far, refused when they need more than the limit allows.
  void add_cluster_hosts(const pugi::xml_node& node, double hosts) {
    cluster_hosts_ += hosts;
    const double need = cluster_hosts_ * kClusterHostBytes;
    if (!limits_.memory_bytes) limits_.memory_bytes = util::available_memory();
    if (limits_.memory_bytes && need > *limits_.memory_bytes) {
      char count[32];
      std::snprintf(count, sizeof count, "%.0f", cluster_hosts_);
      fail(node, what(node) + ": the platform's clusters hold " + count + " hosts, which need about " +
                     util::format_bytes(need) + " in a run (" + util::format_bytes(kClusterHostBytes) +
                     " a host), more than the " + util::format_bytes(*limits_.memory_bytes) + " available");
    }
  }

  // Hosts a TORUS, FAT_TREE or DRAGONFLY cluster builds, from its topo_parameters.
  int64_t topology_hosts(const pugi::xml_node& node, const std::string& topology) {
    const std::string text = node.attribute("topo_parameters").value();
    auto bad = [&](const std::string& form) {
      fail(node,
           what(node) + ": topo_parameters of a " + topology + " cluster must be " + form + ", got " + in_quotes(text));
    };
    auto counts = [&](const std::string& list, const std::string& form) {
      std::vector<int64_t> out;
      for (const std::string& s : split(list, ',')) {
        const std::optional<int64_t> n = parse_count(s);
        if (!n || *n < 1 || *n > kMaxFactor) bad(form);
        out.push_back(*n);
      }
      return out;
    };
    auto product = [&](const std::vector<int64_t>& v, const std::string& form) {
      double p = 1;
      for (int64_t x : v) p *= static_cast<double>(x);
      if (p > static_cast<double>(kMaxFactor)) bad(form + " (at most " + std::to_string(kMaxFactor) + " hosts)");
      return static_cast<int64_t>(p);
    };
    if (topology == "TORUS") {
      const std::string form = "dimensions such as \"4,4,4\"";
      return product(counts(text, form), form);
    }
    const std::vector<std::string> parts = split(text, ';');
    if (topology == "FAT_TREE") {
      const std::string form = "\"levels;down,...;up,...;links,...\" such as \"2;4,4;1,2;1,2\"";
      if (parts.size() != 4) bad(form);
      const std::optional<int64_t> levels = parse_count(parts[0]);
      if (!levels || *levels < 1) bad(form);
      const std::vector<int64_t> down = counts(parts[1], form);
      if (static_cast<int64_t>(down.size()) != *levels ||
          static_cast<int64_t>(counts(parts[2], form).size()) != *levels ||
          static_cast<int64_t>(counts(parts[3], form).size()) != *levels) {
        bad(form);
      }
      return product(down, form);
    }
    const std::string form = "\"groups,links;chassis,links;routers,links;nodes\" such as \"3,4;4,3;5,1;2\"";
    if (parts.size() != 4) bad(form);
    std::vector<int64_t> sizes;
    for (int i = 0; i < 3; ++i) {
      const std::vector<int64_t> pair = counts(parts[i], form);
      if (pair.size() != 2) bad(form);
      sizes.push_back(pair[0]);
    }
    const std::vector<int64_t> nodes = counts(parts[3], form);
    if (nodes.size() != 1) bad(form);
    sizes.push_back(nodes[0]);
    return product(sizes, form);
  }

  void read_cluster(const pugi::xml_node& node) {
    only_known_attributes(node, {"id", "prefix", "suffix", "radical", "speed", "core", "bw", "lat", "sharing_policy",
                                 "topology", "topo_parameters", "bb_bw", "bb_lat", "bb_sharing_policy", "router_id",
                                 "limiter_link", "loopback_bw", "loopback_lat"});
    only_children(node, {"prop"});
    const std::map<std::string, std::string> cluster_props = props(node);
    // A <cluster> is a zone of its own, directly in <platform> or in a zone that routes between zones.
    ZoneState* parent = zones_.empty() ? nullptr : &zones_.back();
    if (parent && (parent->ref.routing == Routing::Wifi || parent->ref.routing == Routing::None ||
                   parent->ref.routing == Routing::Vivaldi)) {
      fail(node, what(node) + ": a zone with routing=" + in_quotes(routing_name(parent->ref.routing)) +
                     " cannot contain clusters");
    }
    const std::string id = id_of(node);
    const std::string prefix = required(node, "prefix"), suffix = required(node, "suffix");
    const std::vector<int64_t> numbers = radicals(node);
    energy_properties(node, cluster_props, speeds(node).size());
    cores(node);
    attr_quantity(node, "bw", Quantity::Bandwidth, false);
    attr_quantity(node, "lat", Quantity::Time, true);
    for (const char* bw : {"bb_bw", "limiter_link", "loopback_bw"}) {
      if (*node.attribute(bw).value()) attr_quantity(node, bw, Quantity::Bandwidth, false);
    }
    for (const char* lat : {"bb_lat", "loopback_lat"}) {
      if (*node.attribute(lat).value()) attr_quantity(node, lat, Quantity::Time, true);
    }
    const std::string policy =
        node.attribute("sharing_policy") ? node.attribute("sharing_policy").value() : "SPLITDUPLEX";
    if (policy != "SHARED" && policy != "SPLITDUPLEX" && policy != "FULLDUPLEX" && policy != "FATPIPE") {
      fail(node, what(node) + ": sharing_policy must be SHARED, SPLITDUPLEX or FATPIPE, got " + in_quotes(policy));
    }
    const std::string bb_policy =
        node.attribute("bb_sharing_policy") ? node.attribute("bb_sharing_policy").value() : "SHARED";
    if (bb_policy != "SHARED" && bb_policy != "FATPIPE") {
      fail(node, what(node) + ": bb_sharing_policy must be SHARED or FATPIPE, got " + in_quotes(bb_policy));
    }
    const std::string topology = node.attribute("topology") ? node.attribute("topology").value() : "FLAT";
    if (topology != "FLAT" && topology != "TORUS" && topology != "FAT_TREE" && topology != "DRAGONFLY") {
      fail(node, what(node) + ": topology must be FLAT, TORUS, FAT_TREE or DRAGONFLY, got " + in_quotes(topology));
    }
    new_netpoint(node, id);
    zones_.push_back(open_zone(node, id, Routing::Cluster));
    size_t host_count = numbers.size();
    if (topology != "FLAT") {
      info_.has_multilevel_cluster = true;
      const int64_t needed = topology_hosts(node, topology);
      if (static_cast<int64_t>(numbers.size()) < needed) {
        fail(node, what(node) + ": its " + topology + " topology has " + std::to_string(needed) +
                       " hosts but radical gives only " + std::to_string(numbers.size()) + " numbers");
      }
      host_count = static_cast<size_t>(needed);
    }
    std::string router = node.attribute("router_id").value();
    if (router.empty()) router = prefix + id + "_router" + suffix;
    for (size_t i = 0; i < host_count; ++i) {
      const std::string host = prefix + std::to_string(numbers[i]) + suffix;
      new_host(node, host, cluster_props);
      if (topology == "FLAT") info_.one_link_pairs.emplace_back(host, router);
    }
    if (topology == "FLAT") new_netpoint(node, router);
    zones_.pop_back();
  }

  void read_cabinet(const pugi::xml_node& node) {
    only_known_attributes(node, {"id", "prefix", "suffix", "radical", "speed", "bw", "lat"});
    ZoneState& z = zone(node);
    if (z.ref.routing != Routing::Cluster) fail(node, what(node) + " must be inside a routing=\"Cluster\" zone");
    id_of(node);
    const std::string prefix = required(node, "prefix"), suffix = required(node, "suffix");
    const std::vector<int64_t> numbers = radicals(node);
    attr_quantity(node, "speed", Quantity::Speed, false);
    attr_quantity(node, "bw", Quantity::Bandwidth, false);
    attr_quantity(node, "lat", Quantity::Time, true);
    for (int64_t n : numbers) {
      const std::string host = prefix + std::to_string(n) + suffix;
      new_host(node, host);
      new_link(node, "link_" + host + "_UP", "SHARED");
      new_link(node, "link_" + host + "_DOWN", "SHARED");
      z.linked_hosts.insert(host);
    }
  }

  void read_peer(const pugi::xml_node& node) {
    only_known_attributes(node, {"id", "speed", "bw_in", "bw_out", "lat", "coordinates", "speed_file",
                                 "availability_file", "state_file"});
    if (zone(node).ref.routing != Routing::Vivaldi)
      fail(node, what(node) + " must be inside a routing=\"Vivaldi\" zone");
    const std::string id = id_of(node);
    attr_quantity(node, "speed", Quantity::Speed, false);
    attr_quantity(node, "bw_in", Quantity::Bandwidth, false);
    attr_quantity(node, "bw_out", Quantity::Bandwidth, false);
    if (node.attribute("lat")) attr_quantity(node, "lat", Quantity::Time, true);
    no_profiles(node, {"speed_file", "availability_file", "state_file"});
    coordinates(node, true);
    new_host(node, id);
    new_link(node, "link_" + id + "_UP", "SHARED");
    new_link(node, "link_" + id + "_DOWN", "SHARED");
  }

  void read_route(const pugi::xml_node& node) {
    const std::string_view tag = node.name();
    const bool bypass = tag.rfind("bypass", 0) == 0;
    const bool between_zones = tag.find("one") != std::string_view::npos || tag.find("AS") != std::string_view::npos;
    if (between_zones) {
      only_known_attributes(node, {"src", "dst", "gw_src", "gw_dst", "symmetrical"});
    } else {
      only_known_attributes(node, {"src", "dst", "symmetrical"});
    }
    only_children(node, {"link_ctn"});
    ZoneState& z = zone(node);
    const Routing r = z.ref.routing;
    if (r == Routing::None || r == Routing::Wifi || r == Routing::Vivaldi) {
      fail(node, "<" + std::string(tag) + ">: a zone with routing=" + in_quotes(routing_name(r)) +
                     " cannot hold routes (zone " + in_quotes(z.ref.id) + ")");
    }
    const std::string src = required(node, "src"), dst = required(node, "dst");
    std::vector<const char*> ends = {"src", "dst"};
    if (between_zones) ends = {"src", "dst", "gw_src", "gw_dst"};
    for (const char* end : ends) {
      const std::string name = required(node, end);
      if (!netpoints_.count(name)) {
        fail(node, "<" + std::string(tag) + ">: " + end + " " + in_quotes(name) +
                       " is not a host, router or zone declared before it");
      }
    }
    const std::string symmetrical = node.attribute("symmetrical") ? node.attribute("symmetrical").value() : "YES";
    if (symmetrical != "YES" && symmetrical != "NO" && symmetrical != "yes" && symmetrical != "no") {
      fail(node, "<" + std::string(tag) + ">: symmetrical must be YES or NO, got " + in_quotes(symmetrical));
    }
    size_t count = 0;
    for (const pugi::xml_node& l : node.children("link_ctn")) {
      only_known_attributes(l, {"id", "direction"});
      const std::string id = required(l, "id");
      const std::string direction = l.attribute("direction") ? l.attribute("direction").value() : "NONE";
      const auto it = links_.find(id);
      if (it == links_.end()) fail(l, "<link_ctn>: no link " + in_quotes(id) + " declared before this route");
      if (direction != "NONE" && direction != "UP" && direction != "DOWN") {
        fail(l, "<link_ctn> " + in_quotes(id) + ": direction must be UP, DOWN or NONE, got " + in_quotes(direction));
      }
      if ((direction != "NONE") != (it->second.policy == "SPLITDUPLEX")) {
        fail(l, "<link_ctn> " + in_quotes(id) +
                    (direction == "NONE" ? ": a SPLITDUPLEX link needs direction=\"UP\" or \"DOWN\" in a route"
                                         : ": direction is only for SPLITDUPLEX links"));
      }
      ++count;
    }
    if (bypass) return;
    // Full and Floyd zones abort on a second route between the same two points.
    const bool both_ways = symmetrical == "YES" || symmetrical == "yes";
    const bool clash =
        !z.routes.insert({src, dst}).second || (both_ways && src != dst && !z.routes.insert({dst, src}).second);
    if (clash) {
      fail(node, "<" + std::string(tag) + ">: a route between " + in_quotes(src) + " and " + in_quotes(dst) +
                     " already exists in this direction (routes are symmetrical unless symmetrical=\"NO\")");
    }
    if (!between_zones && count == 1) info_.one_link_pairs.emplace_back(src, dst);
  }

  std::string_view xml_;
  std::string name_;
  CheckLimits limits_;
  double cluster_hosts_ = 0;  // every <cluster> and <cabinet> so far (add_cluster_hosts)
  std::vector<size_t> newlines_;
  std::vector<ZoneState> zones_;
  std::set<std::string> netpoints_;
  PlatformInfo info_;
  std::map<std::string, LinkPlace>& links_ = info_.links;  // built in place: run() returns info_
  std::map<std::string, int> station_levels_;
};

}  // namespace

std::string_view routing_name(Routing r) {
  switch (r) {
    case Routing::Full: return "Full";
    case Routing::Floyd: return "Floyd";
    case Routing::Dijkstra: return "Dijkstra";
    case Routing::DijkstraCache: return "DijkstraCache";
    case Routing::Cluster: return "Cluster";
    case Routing::None: return "None";
    case Routing::Vivaldi: return "Vivaldi";
    case Routing::Wifi: return "Wifi";
  }
  return "";
}

PlatformInfo check_platform_text(std::string_view xml, const std::string& shown_name, const CheckLimits& limits) {
  return Checker(xml, shown_name, limits).run();
}

PlatformInfo check_platform_file(const std::filesystem::path& file, const CheckLimits& limits) {
  return check_platform_text(util::read_input_as<PlatformFileError>(file, util::kPlatformInput), file.string(),
                             limits);
}

}  // namespace edgetrain::platform
