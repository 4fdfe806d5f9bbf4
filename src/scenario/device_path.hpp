// How a run's devices are simulated, decided from the scenario once: as SimGrid activities driven by
// a few actors per round (sim/core/activity_fleet.hpp: no actor and no stack per device, so a million
// devices can all take part in one round), or each as its own actor with a downlink courier
// (sim/core/device_actor.hpp). The activity path covers the plain case, where a device's round is
// always the same chain (receive the model, compute its steps, push the update), and gives the results
// of the actors byte for byte (tests/sim/activity_path_test.py). Everything else keeps the actors: they
// wait for stream data, survive faults, take part in secure rounds, sit on a population's host slots.
// The run adds what only it knows (sim/core/device_path.hpp); the memory estimate reads this.
#pragma once

#include <string>

#include "scenario/scenario.hpp"

namespace edgetrain::scenario {

// Why the devices keep their actors; empty: they run as activities. EDGETRAIN_DEVICE_ACTORS=1 in the
// environment forces the actors (the tests compare both paths with it); it is no user setting: both paths
// give the same results.
std::string device_actors_reason(const Scenario& s);

}  // namespace edgetrain::scenario
