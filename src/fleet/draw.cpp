// See draw.hpp. The random numbers are SplitMix64 and the normal draws Box-Muller on them, not
// <random>'s distributions, whose output differs between standard libraries.
#include "fleet/draw.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "fleet/names.hpp"
#include "fleet/split.hpp"
#include "util/format.hpp"
#include "util/seed.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::fleet {
namespace {

// Index into spec lists by name (the lists are short: classes, link classes, site groups).
template <typename T>
size_t index_of(const std::vector<T>& items, const std::string& name) {
  return static_cast<size_t>(
      std::find_if(items.begin(), items.end(), [&](const T& item) { return item.name == name; }) - items.begin());
}

// Per-site counts of class `c`: its site shares (each group's share split evenly over the
// group's sites), or every site alike.
std::vector<int64_t> class_site_counts(const FleetSpec& spec, const DeviceClass& c, const std::vector<Site>& sites) {
  std::vector<double> weights(sites.size(), c.site_shares.empty() ? 1.0 : 0.0);
  for (const auto& [group, share] : c.site_shares) {
    const size_t g = index_of(spec.sites, group);
    for (size_t s = 0; s < sites.size(); ++s)
      if (sites[s].group == g) weights[s] = share / static_cast<double>(spec.sites[g].count);
  }
  return exact_split(c.count, weights);
}

// Class `c`'s link class per device (by its index in the class): exact counts, seeded order.
std::vector<size_t> class_links(const FleetSpec& spec, const DeviceClass& c, uint64_t seed) {
  std::vector<double> shares;
  for (const auto& [name, share] : c.link_shares) shares.push_back(share);
  const std::vector<int64_t> counts = exact_split(c.count, shares);
  std::vector<size_t> links;
  links.reserve(static_cast<size_t>(c.count));
  for (size_t k = 0; k < counts.size(); ++k)
    links.insert(links.end(), static_cast<size_t>(counts[k]), index_of(spec.link_classes, c.link_shares[k].first));
  UniformSource source(util::derive_seed(seed, "fleet.links." + c.name));
  for (size_t i = links.size(); i > 1; --i) {  // Fisher-Yates
    const auto j = static_cast<size_t>(source.next() * static_cast<double>(i));
    std::swap(links[i - 1], links[std::min(j, i - 1)]);
  }
  return links;
}

// A trace device of `size`, drawn from the device's own stream for that trace (with replacement:
// a class may have more devices than the trace).
size_t trace_pick(uint64_t seed, const std::string& tag, uint64_t j, size_t size) {
  UniformSource pick(util::derive_seed(seed, tag, j));
  return std::min(static_cast<size_t>(pick.next() * static_cast<double>(size)), size - 1);
}

// The class's traces (spec.hpp): speed = reference training FLOPs / (3 x ms per sample / 1000),
// rounded to whole Mf as drawn speeds are; both access links at the row's bandwidth; the on intervals.
void follow_traces(const DeviceClass& cls, uint64_t seed, uint64_t j, Device& d) {
  if (cls.capacity) {
    const input::DeviceCapacity& row =
        cls.capacity->rows[trace_pick(seed, "fleet.capacity." + cls.name, j, cls.capacity->rows.size())];
    const double speed = cls.reference_step_flops / (3.0 * row.compute_ms_per_sample / 1e3);
    d.speed_flops = 1e6 * std::max(1.0, std::round(speed / 1e6));
    d.bandwidth_bps = row.bandwidth_kbps * 1e3;
  }
  if (cls.availability) {
    const auto& on =
        cls.availability->on[trace_pick(seed, "fleet.availability." + cls.name, j, cls.availability->on.size())];
    for (const input::OnInterval& i : on) {
      if (!d.availability_on_s.empty()) d.availability_on_s += ",";
      d.availability_on_s += util::format_number(i.start_s) + ":" + util::format_number(i.end_s);
    }
  }
}

}  // namespace

double UniformSource::next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

double draw_value(const Distribution& d, UniformSource& source) {
  switch (d.kind) {
    case Distribution::Kind::Constant: return d.value;
    case Distribution::Kind::Uniform: return d.min + (d.max - d.min) * source.next();
    case Distribution::Kind::Normal: {
      const double u1 = 1.0 - source.next();  // in (0, 1]: log(u1) is finite
      const double u2 = source.next();
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
      return std::clamp(d.mean + d.stddev * z, d.min, d.max);
    }
    case Distribution::Kind::List: {
      double total = 0;
      for (double w : d.weights) total += w;
      double pick = source.next() * total;
      for (size_t i = 0; i < d.values.size(); ++i) {
        if (d.weights[i] > 0 && (pick < d.weights[i] || i + 1 == d.values.size())) return d.values[i];
        pick -= d.weights[i];
      }
      return d.values.back();
    }
  }
  return d.value;
}

int64_t draw_count(const Distribution& d, UniformSource& source) {
  // Every value of a cores distribution is a whole number >= 1 (parse.cpp), so is every draw.
  if (d.kind == Distribution::Kind::Uniform) {  // each whole number of [min, max] alike
    return std::min(static_cast<int64_t>(std::floor(d.min + (d.max - d.min + 1) * source.next())),
                    static_cast<int64_t>(d.max));
  }
  return std::llround(draw_value(d, source));
}

Fleet draw_fleet(const FleetSpec& spec, uint64_t seed) {
  Fleet fleet;
  fleet.spec = &spec;
  fleet.seed = seed;
  for (const auto& [name, group] : site_instances(spec.sites)) fleet.sites.push_back(Site{name, group, 0, 0});
  // counts[c][s]: devices of class c in site s; links[c][j]: link class of the class's j-th host.
  std::vector<std::vector<int64_t>> counts;
  std::vector<std::vector<size_t>> links;
  for (const DeviceClass& c : spec.classes) {
    counts.push_back(class_site_counts(spec, c, fleet.sites));
    links.push_back(class_links(spec, c, seed));
  }
  fleet.devices.reserve(static_cast<size_t>(spec.devices));
  std::vector<int64_t> next_index(spec.classes.size(), 0);  // hosts of a class are numbered site after site
  for (size_t s = 0; s < fleet.sites.size(); ++s) {
    fleet.sites[s].first_device = fleet.devices.size();
    for (size_t c = 0; c < spec.classes.size(); ++c) {
      const DeviceClass& cls = spec.classes[c];
      for (int64_t k = 0; k < counts[c][s]; ++k) {
        util::throw_if_stopped("drawing the fleet");  // 10^6 devices take seconds
        const int64_t j = next_index[c]++;
        UniformSource source(util::derive_seed(seed, "fleet.device." + cls.name, static_cast<uint64_t>(j)));
        Device d;
        d.host = device_host(cls.name, j);
        d.class_index = c;
        d.site_index = s;
        d.link_index = links[c][static_cast<size_t>(j)];
        if (!cls.capacity) d.speed_flops = 1e6 * std::max(1.0, std::round(draw_value(cls.speed_flops, source) / 1e6));
        d.cores = draw_count(cls.cores, source);
        follow_traces(cls, seed, static_cast<uint64_t>(j), d);
        fleet.devices.push_back(std::move(d));
      }
    }
    fleet.sites[s].devices = fleet.devices.size() - fleet.sites[s].first_device;
  }
  return fleet;
}

}  // namespace edgetrain::fleet
