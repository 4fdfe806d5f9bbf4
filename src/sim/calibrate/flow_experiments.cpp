#include "sim/calibrate/flow_experiments.hpp"

#include <simgrid/s4u.hpp>

#include "sim/core/network_calibration.hpp"
#include "sim/core/stop_signal.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

namespace {

std::vector<double> time_one(const Experiment& flows) {
  const double start = sg4::Engine::get_clock();
  std::vector<sg4::CommPtr> comms;
  std::vector<size_t> which;
  for (size_t f = 0; f < flows.size(); ++f) {
    comms.push_back(sg4::Comm::sendto_async(flows[f].from, flows[f].to, static_cast<uint64_t>(flows[f].bytes)));
    which.push_back(f);
  }
  std::vector<double> seconds(flows.size());
  while (!comms.empty()) {
    const auto done = static_cast<size_t>(sg4::Comm::wait_any(comms));
    seconds[which[done]] = sg4::Engine::get_clock() - start;
    comms.erase(comms.begin() + static_cast<std::ptrdiff_t>(done));
    which.erase(which.begin() + static_cast<std::ptrdiff_t>(done));
  }
  return seconds;
}

}  // namespace

FlowTimes time_flows(sg4::Engine& engine, NetworkCalibration& hooks, const std::vector<const packet::Calibration*>& models,
                     const std::vector<Experiment>& experiments) {
  FlowTimes times(models.size());
  sg4::Host* any = engine.get_all_hosts().front();
  sg4::Actor::create("calibrate", any, [&] {
    for (size_t m = 0; m < models.size(); ++m) {
      hooks.activate(models[m]);
      for (const Experiment& e : experiments) times[m].push_back(time_one(e));
    }
    hooks.activate(nullptr);
  });
  end_run_on_interrupt([] {});
  engine.run();
  return times;
}

}  // namespace edgetrain::sim
