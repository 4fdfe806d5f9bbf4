// See population.hpp.
#include "scenario/population.hpp"

#include <algorithm>
#include <cmath>

#include "fleet/xml.hpp"
#include "platform/check.hpp"
#include "scenario/error.hpp"

namespace edgetrain::scenario {

std::optional<size_t> round_size(const SelectionSpec& selection, size_t members) {
  if (selection.kind == "all") return std::nullopt;
  if (selection.per_round > 0) {
    if (static_cast<size_t>(selection.per_round) > members) {
      throw ScenarioError("training.selection.per_round: " + std::to_string(selection.per_round) +
                          " is more than the " + std::to_string(members) + " devices");
    }
    return static_cast<size_t>(selection.per_round);
  }
  if (selection.fraction > 0) {
    const auto k = static_cast<size_t>(std::llround(selection.fraction * static_cast<double>(members)));
    return std::clamp<size_t>(k, 1, members);
  }
  return std::nullopt;  // every available device
}

size_t planned_round_size(const SelectionSpec& selection, size_t members) {
  return round_size(selection, members).value_or(members);
}

double device_noise_stddev(const Scenario& scenario) {
  const DpSpec& dp = *scenario.privacy.dp;
  const double whole = dp.noise_multiplier * dp.clip;
  if (dp.placement == "central") return 0.0;
  if (dp.placement == "local") return whole;
  return whole / std::sqrt(static_cast<double>(planned_round_size(scenario.training.selection, scenario.devices.size())));
}

bool poisson_draw(const Scenario& scenario) {
  const auto& dp = scenario.privacy.dp;
  return dp && dp->sampling == "poisson" && scenario.training.selection.kind == "random";
}

size_t most_picked(const SelectionSpec& selection, size_t members) {
  const std::optional<size_t> k = round_size(selection, members);
  if (!k) return members;
  // ceil, spared the float noise of e.g. 10 x 1.1 = 11.000000000000002
  const double wanted = std::ceil(static_cast<double>(*k) * (1 + selection.over_selection) - 1e-9);
  return std::min(members, static_cast<size_t>(wanted));
}

namespace {

// The overflow chance a site's default slots allow per round: a uniform draw of `picks` devices puts
// more than the slots in the site less often than this (the run then fails, saying so).
constexpr double kOverflowChance = 1e-12;

// The smallest n with P(X > n) < kOverflowChance for X ~ Binomial(picks, share): a site's devices
// among a uniform pick (the hypergeometric count is tighter still).
size_t binomial_bound(size_t picks, double share) {
  if (share >= 1) return picks;
  double pmf = std::pow(1 - share, static_cast<double>(picks));  // P(X = 0)
  double below = pmf;
  size_t n = 0;
  // Underflow (huge picks) makes pmf 0 at first: then fall back to every pick.
  if (pmf == 0) return picks;
  while (n < picks && 1 - below >= kOverflowChance) {
    pmf *= static_cast<double>(picks - n) / static_cast<double>(n + 1) * share / (1 - share);
    below += pmf;
    ++n;
  }
  return n;
}

// Whether devices of earlier rounds may still be at work when a round starts (over-selection, round
// timeouts): each round's picks then count twice.
bool earlier_rounds_at_work(const Scenario& s) {
  return s.training.selection.over_selection > 0 || s.training.round_timeout_s.has_value();
}

// The slots a site gets by default: every pick may land in it (all, oort: picks follow the devices'
// speeds, which may gather in a site), or for uniform picks (random, available) a bound exceeded with
// chance below kOverflowChance a round, twice that when devices of earlier rounds may still be at work
// (over-selection, round timeouts).
size_t default_slots(const Scenario& s, size_t picks, size_t site_devices, size_t population) {
  const SelectionSpec& sel = s.training.selection;
  size_t n = picks;
  if (sel.kind == "random" || sel.kind == "available") {
    n = binomial_bound(picks, static_cast<double>(site_devices) / static_cast<double>(population));
    if (earlier_rounds_at_work(s)) n *= 2;
  }
  return std::min({n, picks, site_devices});
}

}  // namespace

void place_population(Population& population, Scenario& s) {
  const fleet::Fleet& fleet = population.fleet;
  for (const fleet::DeviceClass& c : population.spec.classes) {
    if (c.count > 0) continue;
    throw ScenarioError("platform.classes." + c.name + ": the population has no device of this class (its share of " +
                        std::to_string(fleet.devices.size()) +
                        " devices rounds to none, or its count is 0): drop the class or give it devices");
  }
  const size_t picked = most_picked(s.training.selection, fleet.devices.size());
  population.slots_per_site.clear();
  for (const fleet::Site& site : fleet.sites) {
    population.slots_per_site.push_back(s.slots_per_site
                                            ? std::min(static_cast<size_t>(*s.slots_per_site), site.devices)
                                            : default_slots(s, picked, site.devices, fleet.devices.size()));
  }
  population.most_at_work = std::min(population.slots(), picked * (earlier_rounds_at_work(s) ? 2 : 1));
  s.platform_xml = fleet::slot_platform_xml(fleet, population.slots_per_site);
  try {
    s.platform_info = std::make_shared<platform::PlatformInfo>(
        platform::check_platform_text(s.platform_xml, s.platform.string() + " (generated slots)"));
  } catch (const platform::PlatformFileError& e) {
    throw ScenarioError(e.what());
  }
}

}  // namespace edgetrain::scenario
