// See run_state.hpp.
#include "sim/core/run_state.hpp"

#include "sim/core/actor_guard.hpp"
#include "sim/core/inbox.hpp"
#include "sim/core/messages.hpp"
#include "util/seed.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::sim {

void RunState::read_parts(const learn::DeviceParts& parts) {
  parts_ = &parts;
  static_orders_.resize(devices.size());  // sized by setup_devices first
}

stream::SampleOrder& RunState::static_order(size_t device) {
  auto& order = static_orders_[device];
  if (!order)
    order = std::make_unique<stream::SampleOrder>(parts_->of(device),
                                                  util::derive_seed(scenario.seed, "sample-order", device));
  return *order;
}

void RunState::post_model(size_t device, std::unique_ptr<ModelMessage> model) {
  DownlinkCourier& to = courier(device);
  if (early_steps && to.device_waits_for_next()) early_steps->start(*this, device, *model);
  to.post(std::move(model));
}

void RunState::fail(const std::string& actor, std::exception_ptr error) {
  if (failure) return;  // the first failure is the cause; what follows from it is not
  try {
    std::rethrow_exception(error);
  } catch (const util::Interrupted&) {
    stop("interrupted", "interrupted by a signal");  // a signal stopped code the actor waited on (a Python policy)
    return;
  } catch (...) {
  }
  status = "failed";
  status_reason = actor + ": " + error_message(error);
  failure = std::move(error);
}

void RunState::count_upload(size_t device, const simgrid::s4u::Host* to, int64_t bytes, int64_t dense_bytes) {
  report::DeviceRecord& record = devices[device];
  record.bytes_up += bytes;
  record.bytes_up_uncompressed += dense_bytes;
  bytes_up += bytes;
  links.carried(device_hosts[device], to, bytes);
}

void RunState::count_download(size_t device, const simgrid::s4u::Host* from, const simgrid::s4u::Host* at,
                              int64_t bytes) {
  devices[device].bytes_down += bytes;
  bytes_down += bytes;
  links.carried(from, at, bytes);
}

void RunState::count_delivered(const UpdateMessage& push, const simgrid::s4u::Host* to) {
  count_upload(push.device, to, push.bytes, push.dense_bytes);
  report::DeviceRecord& record = devices[push.device];
  record.steps += 1;
  record.samples_trained += push.own_samples;
  DeviceLiveness& l = live[push.device];
  l.pushing = false;
  l.held_samples = 0;
  l.model_outstanding = false;
}

void RunState::count_failed(size_t device, bool was_pushing, bool tell_upstream) {
  report::DeviceRecord& record = devices[device];
  DeviceLiveness& l = live[device];
  if (was_pushing) {
    record.failed_pushes += 1;
    updates.failed_pushes += 1;
  }
  record.samples_lost_in_faults += l.held_samples;
  if (l.model_outstanding) updates.selections_failed += 1;
  l.pushing = false;
  l.held_samples = 0;
  l.model_outstanding = false;
  l.in_secure_round = false;
  if (tell_upstream && upstream.at(device)) upstream[device]->poke();
}

}  // namespace edgetrain::sim
