// See activity_fleet.hpp.
#include "sim/core/activity_fleet.hpp"

#include <string>

#include "sim/core/actor_guard.hpp"
#include "sim/core/fleet_driver.hpp"
#include "sim/core/run_state.hpp"
#include "sim/core/wakeup.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

void ActivityFleet::post(size_t device, std::unique_ptr<ModelMessage> model) {
  posted_.push_back({device, std::move(model)});
}

ModelChannel ActivityFleet::take_channel() {
  if (free_channels_.empty()) {
    const std::string name = "fleet/models/" + std::to_string(channels_++);
    ModelChannel channel;
    auto never = std::make_shared<Wakeup>();
    channel.sink = sg4::Actor::init(name + "/sink", server_)
                       ->set_stacksize(kWaiterStackKiB)
                       ->start([never] { never->wait([] { return false; }); });
    channel.sink->daemonize();
    channel.mailbox = sg4::Mailbox::by_name(name);
    channel.mailbox->set_receiver(channel.sink);
    return channel;
  }
  ModelChannel channel = std::move(free_channels_.back());
  free_channels_.pop_back();
  return channel;
}

void ActivityFleet::dispatch() {
  for (size_t first = 0; first < posted_.size(); first += kDevicesPerDriver) {
    std::vector<FleetJob> jobs;
    for (size_t k = first; k < posted_.size() && k < first + kDevicesPerDriver; ++k) jobs.push_back(std::move(posted_[k]));
    // SimGrid copies an actor's functor: the copies share one driver.
    auto driver = std::make_shared<FleetDriver>(state_, *this, std::move(jobs));
    sg4::Actor::create("fleet/driver/" + std::to_string(drivers_++), server_,
                       guarded(state_, [driver] { (*driver)(); }))
        ->daemonize();
  }
  posted_.clear();
}

}  // namespace edgetrain::sim
