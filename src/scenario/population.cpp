// See population.hpp.
#include "scenario/population.hpp"

#include <algorithm>
#include <cmath>

#include "fleet/xml.hpp"
#include "platform/check.hpp"
#include "scenario/error.hpp"

namespace edgetrain::scenario {

size_t most_picked(const SelectionSpec& selection, size_t members) {
  if (selection.kind == "all") return members;
  size_t k = members;
  if (selection.per_round > 0) {
    if (static_cast<size_t>(selection.per_round) > members) {
      throw ScenarioError("training.selection.per_round: " + std::to_string(selection.per_round) +
                          " is more than the " + std::to_string(members) + " devices");
    }
    k = static_cast<size_t>(selection.per_round);
  } else if (selection.fraction > 0) {
    k = std::clamp<size_t>(static_cast<size_t>(std::llround(selection.fraction * static_cast<double>(members))), 1,
                           members);
  } else {
    return members;  // every available device
  }
  // ceil, spared the float noise of e.g. 10 x 1.1 = 11.000000000000002
  const double wanted = std::ceil(static_cast<double>(k) * (1 + selection.over_selection) - 1e-9);
  return std::min(members, static_cast<size_t>(wanted));
}

void place_population(Population& population, Scenario& s) {
  const fleet::Fleet& fleet = population.fleet;
  const size_t picked = most_picked(s.training.selection, fleet.devices.size());
  const size_t per_site = s.slots_per_site ? static_cast<size_t>(*s.slots_per_site) : picked;
  population.slots_per_site.clear();
  for (const fleet::Site& site : fleet.sites) population.slots_per_site.push_back(std::min(per_site, site.devices));
  s.platform_xml = fleet::slot_platform_xml(fleet, population.slots_per_site);
  try {
    s.platform_info = std::make_shared<platform::PlatformInfo>(
        platform::check_platform_text(s.platform_xml, s.platform.string() + " (generated slots)"));
  } catch (const platform::PlatformFileError& e) {
    throw ScenarioError(e.what());
  }
}

}  // namespace edgetrain::scenario
