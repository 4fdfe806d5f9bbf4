// See activity_fleet.hpp.
#include "sim/core/activity_fleet.hpp"

#include <string>

#include "sim/core/actor_guard.hpp"
#include "sim/core/fleet_driver.hpp"
#include "sim/core/run_state.hpp"
#include "sim/core/wakeup.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

ActivityFleet::ActivityFleet(RunState& state, sg4::Host* server) : state_(state), server_(server) {
  // The sink runs no code that matters: it waits for ever (never suspended: a transfer to a suspended
  // actor would start suspended), and others move it.
  auto never = std::make_shared<Wakeup>();
  sink_ = sg4::Actor::create("fleet/sink", server, [never] { never->wait([] { return false; }); });
  sink_->daemonize();
}

void ActivityFleet::post(size_t device, std::unique_ptr<ModelMessage> model) {
  posted_.push_back({device, std::move(model)});
}

sg4::Mailbox* ActivityFleet::take_mailbox() {
  if (free_mailboxes_.empty()) {
    sg4::Mailbox* mailbox = sg4::Mailbox::by_name("fleet/models/" + std::to_string(mailboxes_++));
    mailbox->set_receiver(sink_);
    return mailbox;
  }
  sg4::Mailbox* mailbox = free_mailboxes_.back();
  free_mailboxes_.pop_back();
  return mailbox;
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
