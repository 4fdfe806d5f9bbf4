// See xml.hpp. Numbers are written in SimGrid's base units (f, bps, s) with the shortest text
// that reads back as the same double, so the platform and the device list say the same values.
#include "fleet/xml.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "fleet/names.hpp"
#include "platform/wattage.hpp"
#include "util/printable.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::fleet {
namespace {

// Plain digits, never an exponent ("16000000", "0.00005"), with the fewest digits that read back
// as the same double.
std::string number(double v) {
  char buf[400];
  const auto format = v != 0 && std::abs(v) < 1e-12 ? std::chars_format::scientific : std::chars_format::fixed;
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v, format).ptr);
}

// A speed or bandwidth with the largest of the G, M, k prefixes that keeps it a whole number
// and reads back exactly ("250Mbps", "3400Mf"), else in the base unit.
std::string with_prefix(double v, const char* unit) {
  for (const auto& [scale, prefix] : {std::pair{1e9, "G"}, std::pair{1e6, "M"}, std::pair{1e3, "k"}}) {
    const double q = v / scale;
    if (q >= 1 && q == std::floor(q) && q * scale == v) return number(q) + prefix + unit;
  }
  return number(v) + unit;
}

// Text inside an XML comment: no "--" (nor a "-" before the closing "-->") and no control
// character, which XML forbids anywhere; entities mean nothing there, so these are spelt out.
std::string comment_text(const std::string& s) {
  std::string out;
  for (const char c : util::printable(s)) {
    if (c == '-' && !out.empty() && out.back() == '-') out += ' ';
    out += c;
  }
  if (!out.empty() && out.back() == '-') out += ' ';
  return out;
}

std::string escaped(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\n': out += "&#10;"; break;
      case '\t': out += "&#9;"; break;
      case '\r': out += "&#13;"; break;
      default: out += c;
    }
  }
  return out;
}

class Writer {
 public:
  std::string out;

  void line(int indent, const std::string& text) {
    out.append(static_cast<size_t>(indent) * 2, ' ');
    out += text;
    out += '\n';
  }

  void host(int indent, const std::string& id, double speed, int64_t cores,
            std::initializer_list<std::pair<const char*, const std::string*>> own, const Properties& extra) {
    out.append(static_cast<size_t>(indent) * 2, ' ');
    out += "<host id=\"" + id + "\" speed=\"" + with_prefix(speed, "f") + "\" core=\"" + std::to_string(cores) + "\">";
    for (const auto& [key, value] : own) prop(key, *value);
    for (const auto& [key, value] : extra) prop(key, value);
    out += "</host>\n";
  }

  void link(const std::string& id, double bps, double latency, bool split_duplex = false,
            const std::string& wattage_range = "") {
    out += "<link id=\"" + id + "\" bandwidth=\"" + with_prefix(bps, "bps") + "\" latency=\"" + number(latency) +
           "s\"" + (split_duplex ? " sharing_policy=\"SPLITDUPLEX\"" : "");
    if (wattage_range.empty()) {
      out += "/>";
      return;
    }
    out += ">";
    prop(platform::kLinkWattage, wattage_range);
    out += "</link>";
  }

  // A host's own two links and the <host_link> that gives them to it, on one line.
  void host_links(int indent, const std::string& host, double up_bps, double down_bps, double latency,
                  const LinkClass* wattage = nullptr) {
    out.append(static_cast<size_t>(indent) * 2, ' ');
    link(up_link(host), up_bps, latency, false, wattage ? wattage->up_wattage_range : "");
    link(down_link(host), down_bps, latency, false, wattage ? wattage->down_wattage_range : "");
    out += "<host_link id=\"" + host + "\" up=\"" + up_link(host) + "\" down=\"" + down_link(host) + "\"/>\n";
  }

 private:
  void prop(const std::string& key, const std::string& value) {
    out += "<prop id=\"" + escaped(key) + "\" value=\"" + escaped(value) + "\"/>";
  }
};

const std::string kDevice = "device", kSiteAggregator = "site-aggregator", kCloud = "cloud", kSlot = "slot";

std::string link_ctn(const std::string& id, const char* direction = nullptr) {
  return "<link_ctn id=\"" + id + "\"" + (direction ? std::string(" direction=\"") + direction + "\"" : "") + "/>";
}

// A site's devices each on a host of its own, with its own two links.
void device_hosts(Writer& w, const Fleet& fleet, const Site& site) {
  const FleetSpec& spec = *fleet.spec;
  for (size_t i = site.first_device; i < site.first_device + site.devices; ++i) {
    util::throw_if_stopped("writing the fleet's platform");
    const Device& d = fleet.devices[i];
    const DeviceClass& c = spec.classes[d.class_index];
    const LinkClass& l = spec.link_classes[d.link_index];
    Properties traced;  // the class's properties and the device's on intervals
    if (!d.availability_on_s.empty()) {
      traced = c.properties;
      traced[kAvailabilityProperty] = d.availability_on_s;
    }
    w.host(3, d.host, d.speed_flops, d.cores,
           {{"role", &kDevice}, {"class", &c.name}, {"site", &site.name}, {"link_class", &l.name}},
           d.availability_on_s.empty() ? c.properties : traced);
    const double up = d.bandwidth_bps > 0 ? d.bandwidth_bps : l.up_bps;
    const double down = d.bandwidth_bps > 0 ? d.bandwidth_bps : l.down_bps;
    w.host_links(3, d.host, up, down, l.latency_s, &l);
  }
}

// A site's host slots: as fast as its fastest device (a placed device's steps are bounded to its own
// speed), one core, and links that each placement sets to its device's.
void slot_hosts(Writer& w, const Fleet& fleet, const Site& site, size_t slots) {
  if (slots == 0) return;
  double fastest = 0;
  for (size_t i = site.first_device; i < site.first_device + site.devices; ++i)
    fastest = std::max(fastest, fleet.devices[i].speed_flops);
  const Device& first = fleet.devices[site.first_device];
  const LinkClass& l = fleet.spec->link_classes[first.link_index];
  for (size_t k = 0; k < slots; ++k) {
    const std::string host = slot_host(site.name, k);
    w.host(3, host, fastest, 1, {{"role", &kSlot}, {"site", &site.name}}, {});
    w.host_links(3, host, l.up_bps, l.down_bps, l.latency_s);
  }
}

std::string write_platform(const Fleet& fleet, const std::vector<size_t>* slots) {
  const FleetSpec& spec = *fleet.spec;
  Writer w;
  w.out.reserve((slots ? 0 : fleet.devices.size() * 420) + 4096);
  w.line(0, "<?xml version='1.0'?>");
  w.line(0, "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">");
  w.line(0, "<!-- Generated by `edgetrain fleet` from fleet \"" + comment_text(spec.name) + "\" with seed " +
                std::to_string(fleet.seed) + ": " + std::to_string(fleet.devices.size()) + " devices in " +
                std::to_string(fleet.sites.size()) + " site(s). Regenerate it rather than editing it. -->");
  w.line(0, "<platform version=\"4.1\">");
  w.line(1, std::string("<zone id=\"") + kTopZone + "\" routing=\"Full\">");
  const std::string& cloud = spec.cloud.host;
  w.line(2, "<zone id=\"" + cloud_zone(cloud) + "\" routing=\"Full\">");
  w.host(3, cloud, spec.cloud.spec.speed_flops, spec.cloud.spec.cores, {{"role", &kCloud}}, spec.cloud.spec.properties);
  w.line(2, "</zone>");
  for (const Site& site : fleet.sites) {
    const SiteGroup& group = spec.sites[site.group];
    w.line(2, "<zone id=\"" + site.name + "\" routing=\"Cluster\">");
    w.line(3, "<router id=\"" + site_router(site.name) + "\"/>");
    if (group.lan) {
      w.line(3, "<backbone id=\"" + lan_link(site.name) + "\" bandwidth=\"" +
                    with_prefix(group.lan->bandwidth_bps, "bps") + "\" latency=\"" + number(group.lan->latency_s) +
                    "s\"/>");
    }
    if (group.aggregator) {
      const SiteAggregator& a = *group.aggregator;
      const std::string host = site_aggregator(site.name);
      w.host(3, host, a.host.speed_flops, a.host.cores, {{"role", &kSiteAggregator}, {"site", &site.name}},
             a.host.properties);
      w.host_links(3, host, a.link.up_bps, a.link.down_bps, a.link.latency_s);
    }
    if (slots) {
      slot_hosts(w, fleet, site, (*slots)[&site - fleet.sites.data()]);
    } else {
      device_hosts(w, fleet, site);
    }
    w.line(2, "</zone>");
  }
  // The links between zones, then the routes that use them.
  for (const Site& site : fleet.sites) {
    if (const auto& up = spec.sites[site.group].uplink) {
      w.out += "    ";
      w.link(uplink_up(site.name), up->up_bps, up->latency_s);
      w.link(uplink_down(site.name), up->down_bps, up->latency_s);
      w.out += "\n";
    }
  }
  w.out += "    ";
  w.link(kWanLink, spec.wan.bandwidth_bps, spec.wan.latency_s, true);
  w.out += "\n";
  if (spec.cloud.ingress) {
    w.out += "    ";
    w.link(kIngressLink, spec.cloud.ingress->bandwidth_bps, spec.cloud.ingress->latency_s, true);
    w.out += "\n";
  }
  for (const Site& site : fleet.sites) {
    const bool uplink = spec.sites[site.group].uplink.has_value();
    const std::string ingress_up = spec.cloud.ingress ? link_ctn(kIngressLink, "UP") : "";
    const std::string ingress_down = spec.cloud.ingress ? link_ctn(kIngressLink, "DOWN") : "";
    w.line(2, "<zoneRoute src=\"" + site.name + "\" dst=\"" + cloud_zone(cloud) + "\" gw_src=\"" +
                  site_router(site.name) + "\" gw_dst=\"" + cloud + "\" symmetrical=\"NO\">" +
                  (uplink ? link_ctn(uplink_up(site.name)) : "") + link_ctn(kWanLink, "UP") + ingress_up +
                  "</zoneRoute>");
    w.line(2, "<zoneRoute src=\"" + cloud_zone(cloud) + "\" dst=\"" + site.name + "\" gw_src=\"" + cloud +
                  "\" gw_dst=\"" + site_router(site.name) + "\" symmetrical=\"NO\">" + ingress_down +
                  link_ctn(kWanLink, "DOWN") + (uplink ? link_ctn(uplink_down(site.name)) : "") + "</zoneRoute>");
  }
  w.line(1, "</zone>");
  w.line(0, "</platform>");
  return std::move(w.out);
}

}  // namespace

std::string platform_xml(const Fleet& fleet) { return write_platform(fleet, nullptr); }

std::string platform_xml(const FleetSpec& spec, uint64_t seed) { return platform_xml(draw_fleet(spec, seed)); }

std::string slot_platform_xml(const Fleet& fleet, const std::vector<size_t>& slots_per_site) {
  return write_platform(fleet, &slots_per_site);
}

std::string device_speed(const Fleet& fleet, size_t device) {
  return with_prefix(fleet.devices[device].speed_flops, "f");
}

DeviceValues device_values(const Fleet& fleet, size_t device) {
  const Device& d = fleet.devices[device];
  const LinkClass& l = fleet.spec->link_classes[d.link_index];
  return {device_speed(fleet, device), with_prefix(d.bandwidth_bps > 0 ? d.bandwidth_bps : l.up_bps, "bps"),
          with_prefix(d.bandwidth_bps > 0 ? d.bandwidth_bps : l.down_bps, "bps"), number(l.latency_s) + "s"};
}

std::filesystem::path device_list_path(const std::filesystem::path& platform) {
  std::filesystem::path p = platform;
  p.replace_extension(".devices.csv");
  return p;
}

std::string device_list_csv(const Fleet& fleet) {
  const FleetSpec& spec = *fleet.spec;
  std::string out = "host,class,site,link_class,speed_flops,cores,up_bps,down_bps,latency_s\n";
  out.reserve(fleet.devices.size() * 90 + out.size());
  for (const Device& d : fleet.devices) {
    const LinkClass& l = spec.link_classes[d.link_index];
    out += d.host + "," + spec.classes[d.class_index].name + "," + fleet.sites[d.site_index].name + "," + l.name + "," +
           number(d.speed_flops) + "," + std::to_string(d.cores) + "," +
           number(d.bandwidth_bps > 0 ? d.bandwidth_bps : l.up_bps) + "," +
           number(d.bandwidth_bps > 0 ? d.bandwidth_bps : l.down_bps) + "," + number(l.latency_s) + "\n";
  }
  return out;
}

std::string device_list_csv(const FleetSpec& spec, uint64_t seed) { return device_list_csv(draw_fleet(spec, seed)); }

std::string describe_fleet(const Fleet& fleet) {
  const FleetSpec& spec = *fleet.spec;
  std::map<std::string, int64_t> per_class, per_group, per_link;
  for (const Device& d : fleet.devices) {
    ++per_class[spec.classes[d.class_index].name];
    ++per_group[spec.sites[fleet.sites[d.site_index].group].name];
    ++per_link[spec.link_classes[d.link_index].name];
  }
  auto list = [](const std::map<std::string, int64_t>& m) {
    std::string s;
    for (const auto& [name, n] : m) s += (s.empty() ? "" : ", ") + name + " " + std::to_string(n);
    return s;
  };
  int64_t aggregators = 0;
  for (const Site& s : fleet.sites) aggregators += spec.sites[s.group].aggregator ? 1 : 0;
  return "fleet \"" + spec.name + "\" (seed " + std::to_string(fleet.seed) +
         "): " + std::to_string(fleet.devices.size()) + " devices in " + std::to_string(fleet.sites.size()) +
         " site(s), " + std::to_string(aggregators) + " site aggregator(s), cloud host \"" + spec.cloud.host + "\"\n" +
         "  classes: " + list(per_class) + "\n  sites: " + list(per_group) + "\n  link classes: " + list(per_link) +
         "\n";
}

}  // namespace edgetrain::fleet
