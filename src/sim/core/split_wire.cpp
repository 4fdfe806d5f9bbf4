// See split_wire.hpp. The sizes are those a timing-only run charges (timing_backend.cpp, split_exchange.cpp).
#include "sim/core/split_wire.hpp"

#include <cstdio>

#include "backend/travelling_part.hpp"
#include "compress/size.hpp"
#include "scenario/population.hpp"
#include "sim/core/wire.hpp"
#include "util/memory.hpp"

namespace edgetrain::sim {

namespace {

std::string bytes_text(int64_t bytes) {
  return std::to_string(bytes) + " bytes (" + util::format_bytes(static_cast<double>(bytes)) + ")";
}

}  // namespace

std::string split_wire_text(const scenario::Scenario& s, const backend::ChargedModel& charged) {
  const strategy::SplitPlan& plan = *charged.split;
  const backend::TravellingPart device(charged.layers, charged.stays);  // the server's tensors stay
  const double total_flops = plan.device_forward_flops + plan.server_forward_flops;
  char share[64];
  std::snprintf(share, sizeof share, "%.4g%%", total_flops > 0 ? 100.0 * plan.device_forward_flops / total_flops : 0.0);
  std::string out = "split learning: the devices run " + charged.cost.name + "'s first " + std::to_string(plan.cut) +
                    " module(s), up to " + plan.cut_module + " (" + std::to_string(plan.device_params) + " of " +
                    std::to_string(plan.device_params + plan.server_params) + " parameters, " + share +
                    " of a step's FLOPs); the server runs the rest on its host\n";
  const int64_t batch = s.training.batch_size, steps = s.training.local_steps;
  const int64_t activations = message_bytes(plan.activation_bytes * batch);
  out += "messages: each local step, activations up and their gradient down, " + std::to_string(plan.activation_bytes) +
         " bytes a sample, " + bytes_text(activations) + " a message at batch " + std::to_string(batch) + "; after " +
         std::to_string(steps) + " local steps, uplink the device part's delta ";
  const std::optional<int64_t> payload = compress::planned_payload_bytes(s.compression.uplink, device.layout());
  std::optional<int64_t> up;
  if (payload) up = message_bytes(*payload);
  out += up ? bytes_text(*up) + " a message" : std::string("of the data's size (no timing_ratio declared)");
  const int64_t down = message_bytes(4 * plan.device_params);
  out += "; downlink the device part, dense, " + bytes_text(down) + " a message\n";
  const size_t picked = scenario::most_picked(s.training.selection, s.devices.size());
  out += "a round: " + std::to_string(picked) + " devices picked x (uplink + downlink + " + std::to_string(steps) +
         " x 2 activation messages)";
  if (up)
    out += " = " + bytes_text(static_cast<int64_t>(picked) * (*up + down + 2 * steps * activations)) + ", of which " +
           bytes_text(static_cast<int64_t>(picked) * (*up + steps * activations)) + " up";
  return out + "\n";
}

}  // namespace edgetrain::sim
