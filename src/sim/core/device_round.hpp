// The bookkeeping of a device's round that does not depend on how the device is simulated: a device
// actor (device_actor.hpp) and a fleet driver (fleet_driver.hpp) call the same functions at the same
// instants, so the two paths cannot drift apart.
#pragma once

#include <cstddef>
#include <simgrid/s4u.hpp>

#include "sim/core/messages.hpp"

namespace edgetrain::sim {

struct RunState;

// The device's model arrived now on `at`: the wait before its transfer began, the transfer itself, the
// rounds that went on without the device, and the bytes down.
void account_model_received(RunState& state, size_t device, const ModelMessage& model, const simgrid::s4u::Host* at);

// The update's sizes once its payload is in: on the wire, dense, and those of the samples it shares.
void size_update(const RunState& state, size_t device, UpdateMessage& message);

}  // namespace edgetrain::sim
