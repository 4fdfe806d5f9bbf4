// See device_path.hpp.
#include "sim/core/device_path.hpp"

#include <xbt/config.hpp>

#include "scenario/device_path.hpp"

namespace edgetrain::sim {

DevicePath choose_device_path(const scenario::Scenario& scenario, bool crosscheck) {
  std::string reason = scenario::device_actors_reason(scenario);
  if (reason.empty() && crosscheck) reason = "crosscheck";
  if (reason.empty() && simgrid::config::get_value<std::string>("network/model") == "ns-3")
    reason = "the ns-3 network model";
  return {reason.empty(), reason};
}

}  // namespace edgetrain::sim
