// See device_path.hpp. Each condition names a feature whose device side only the device actor has; the
// first that holds is the reason given.
#include "scenario/device_path.hpp"

#include <cstdlib>

namespace edgetrain::scenario {

std::string device_actors_reason(const Scenario& s) {
  if (const char* forced = std::getenv("EDGETRAIN_DEVICE_ACTORS"); forced && std::string(forced) == "1")
    return "EDGETRAIN_DEVICE_ACTORS=1";
  if (!s.training.timing_only()) return "real training (a step runs on the worker pool while its actor waits)";
  if (s.topology.kind != "flat") return "topology " + s.topology.kind;
  if (s.training.applies_on_arrival()) return "updates applied on arrival (devices pull their models)";
  if (s.population) return "a population on host slots";
  for (const DeviceSpec& d : s.devices)
    if (d.stream) return "streaming devices (they wait for their data)";
  if (s.faults) return "faults";
  if (s.traces) return "traces";
  if (s.privacy.secure_aggregation) return "secure aggregation";
  if (s.training.injection) return "data injection";
  // A round that closes before every update arrived leaves devices busy into the next one.
  if (s.training.round_timeout_s || s.training.deadline == "fedbalancer") return "round deadlines";
  if (s.training.selection.over_selection > 0) return "over-selection";
  if (s.strategy_is("splitfed")) return "split learning";
  return "";
}

}  // namespace edgetrain::scenario
