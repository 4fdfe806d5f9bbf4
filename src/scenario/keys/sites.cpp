// See sites.hpp.
#include "scenario/keys/sites.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "scenario/device_selector.hpp"
#include "scenario/error.hpp"
#include "input/text.hpp"

namespace edgetrain::scenario {

namespace text = input::text;
namespace {

using nlohmann::json;

const std::string* host_property(const platform::PlatformInfo& info, const std::string& host, const std::string& key) {
  const auto& props = info.hosts.at(host).properties;
  const auto it = props.find(key);
  return it == props.end() ? nullptr : &it->second;
}

// The aggregator host `host` must exist, run no device and not be the server.
void check_aggregator_host(const std::string& host, const std::string& at, const std::map<std::string, size_t>& by_host,
                           const json& devices, const platform::PlatformInfo& info, const std::string& server,
                           const std::filesystem::path& platform_file) {
  if (!info.hosts.count(host)) {
    std::string msg = at + ": no host named " + text::show(host) + " in platform " + platform_file.filename().string();
    if (auto near = text::closest(host, info.host_order)) msg += " (did you mean \"" + *near + "\"?)";
    throw ScenarioError(msg);
  }
  if (host == server) {
    throw ScenarioError(at + ": " + text::show(host) +
                        " is the server (the cloud aggregator); a site aggregator needs a host of its own");
  }
  if (const auto it = by_host.find(host); it != by_host.end()) {
    throw ScenarioError(at + ": host " + text::show(host) + " runs device " +
                        text::show(devices[it->second].at("name")) +
                        "; a site aggregator needs a host that runs no device");
  }
}

}  // namespace

json resolve_sites(const json* given, const std::string& at, const json& devices, const platform::PlatformInfo& info,
                   const std::string& server, const std::filesystem::path& platform_file) {
  std::map<std::string, size_t> by_name, by_host;  // device name / host -> device index
  for (size_t i = 0; i < devices.size(); ++i) {
    by_name[devices[i].at("name").get<std::string>()] = i;
    by_host.emplace(devices[i].at("host").get<std::string>(), i);
  }
  std::vector<std::string> site_of(devices.size());  // device index -> its site's aggregator host
  std::map<std::string, std::vector<size_t>> members;
  auto join = [&](size_t device, const std::string& host, const std::string& where) {
    if (!site_of[device].empty() && site_of[device] != host) {
      throw ScenarioError(where + ": device " + text::show(devices[device].at("name")) + " is already in site " +
                          text::show(site_of[device]) + "; every device belongs to exactly one site");
    }
    if (site_of[device].empty()) members[host].push_back(device);
    site_of[device] = host;
  };

  if (given) {
    if (!given->is_object() || given->empty()) {
      throw ScenarioError(at +
                          ": expected an object {\"AGG-HOST\": device selector or list of device names, ...}, got " +
                          text::show(*given));
    }
    for (const auto& [host, value] : given->items()) {
      const std::string at_host = at + "." + host;
      check_aggregator_host(host, at_host, by_host, devices, info, server, platform_file);
      members[host];  // a site even if it has no device yet (an error below)
      if (value.is_array() && !value.empty()) {
        for (size_t j = 0; j < value.size(); ++j) {
          const std::string at_j = at_host + "[" + std::to_string(j) + "]";
          if (!value[j].is_string())
            throw ScenarioError(at_j + ": expected a device name, got " + text::show(value[j]));
          const auto it = by_name.find(value[j].get<std::string>());
          if (it == by_name.end()) {
            std::string msg = at_j + ": no device named " + text::show(value[j]);
            std::vector<std::string> names;
            for (const auto& [n, i] : by_name) names.push_back(n);
            if (auto near = text::closest(value[j].get<std::string>(), names))
              msg += " (did you mean \"" + *near + "\"?)";
            throw ScenarioError(msg);
          }
          join(it->second, host, at_j);
        }
      } else if (value.is_object()) {
        const SelectedHosts selected = select_hosts(value, at_host, info, server, platform_file);
        for (const std::string& h : selected.hosts) {
          const auto it = by_host.find(h);
          if (it == by_host.end()) {
            throw ScenarioError(at_host + ": the selector matches host " + text::show(h) +
                                ", which runs no device of the scenario");
          }
          join(it->second, host, at_host);
        }
      } else {
        throw ScenarioError(at_host +
                            ": expected a device selector (e.g. {\"site\": \"hall-1\"}) or a non-empty list "
                            "of device names, got " +
                            text::show(value));
      }
    }
  } else {
    // Derived: each site-aggregator host serves the devices whose `site` is its own.
    std::map<std::string, std::string> aggregator_of;  // site name -> aggregator host
    for (const std::string& host : info.host_order) {
      const std::string* role = host_property(info, host, "role");
      const std::string* site = host_property(info, host, "site");
      if (role && *role == "site-aggregator" && site) aggregator_of[*site] = host;
    }
    if (aggregator_of.empty()) {
      throw ScenarioError(at + ": not given, and platform " + platform_file.filename().string() +
                          " has no host with role site-aggregator to derive the sites from (give topology.sites)");
    }
    for (size_t i = 0; i < devices.size(); ++i) {
      const std::string& host = devices[i].at("host").get_ref<const std::string&>();
      const std::string* site = host_property(info, host, "site");
      const auto it = site ? aggregator_of.find(*site) : aggregator_of.end();
      if (it == aggregator_of.end()) {
        throw ScenarioError(at + ": device " + text::show(devices[i].at("name")) + " (host " + text::show(host) + ") " +
                            (site ? "is in site " + text::show(*site) + ", which has no site-aggregator host"
                                  : std::string("has no site property")) +
                            " (give topology.sites)");
      }
      check_aggregator_host(it->second, at, by_host, devices, info, server, platform_file);
      join(i, it->second, at);
    }
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    if (site_of[i].empty()) {
      throw ScenarioError(at + ": device " + text::show(devices[i].at("name")) +
                          " is in no site; every device belongs to exactly one site");
    }
  }
  json out = json::object();
  for (auto& [host, list] : members) {
    std::sort(list.begin(), list.end());  // device order, however they were listed
    if (list.empty()) throw ScenarioError(at + "." + host + ": the site has no device");
    json names = json::array();
    for (size_t i : list) names.push_back(devices[i].at("name"));
    out[host] = std::move(names);
  }
  return out;
}

}  // namespace edgetrain::scenario
