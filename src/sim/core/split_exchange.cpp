// See split_exchange.hpp.
#include "sim/core/split_exchange.hpp"

#include <simgrid/s4u.hpp>

#include "sim/core/wire.hpp"

XBT_LOG_NEW_DEFAULT_CATEGORY(edgetrain_split, "edgetrain split learning exchanges");

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

namespace {

void compute(double flops, TimeLedger& ledger) {
  ledger.open(TimeLedger::Bucket::Compute);
  sg4::this_actor::execute(flops);
  ledger.charge(TimeLedger::Bucket::Compute, sg4::Engine::get_clock());
}

// One message of `bytes` from `from` to `to`, its route marked busy meanwhile.
void transfer(RunState& state, sg4::Host* from, sg4::Host* to, int64_t bytes, TimeLedger& ledger) {
  ledger.open(TimeLedger::Bucket::Comm);
  {
    const LinkLedger::Transfer busy(state.links, from, to, bytes);
    sg4::Comm::sendto(from, to, static_cast<uint64_t>(bytes));
  }
  ledger.charge(TimeLedger::Bucket::Comm, sg4::Engine::get_clock());
}

}  // namespace

void split_step(RunState& state, size_t device, sg4::Host* server, const strategy::SplitPlan& plan, double device_flops,
                int64_t samples, TimeLedger& ledger) {
  sg4::Host* host = sg4::this_actor::get_host();
  // The activations at the cut and, back, their gradient: dense fp32, one header each.
  const int64_t bytes = message_bytes(plan.activation_bytes * samples);
  compute(device_flops / 3, ledger);  // the forward pass: a third of the step, as the model's cost counts it
  transfer(state, host, server, bytes, ledger);
  state.count_upload(device, server, bytes, bytes);
  XBT_VERB("device %zu: activations delivered (%ld bytes)", device, static_cast<long>(bytes));
  // The device waits while its server part runs on the server's cores, beside the other devices'.
  ledger.open(TimeLedger::Bucket::Wait);
  sg4::this_actor::exec_init(plan.server_step_flops(samples))->set_host(server)->wait();
  ledger.charge(TimeLedger::Bucket::Wait, sg4::Engine::get_clock());
  transfer(state, server, host, bytes, ledger);
  state.count_download(device, server, host, bytes);
  compute(device_flops - device_flops / 3, ledger);  // the backward pass
}

}  // namespace edgetrain::sim
