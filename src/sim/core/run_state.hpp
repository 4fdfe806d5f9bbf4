// State shared by the protocol actors of one run: counters, records, per-device liveness and the
// stop decision. No model lives here: the aggregators' model stores and the devices' learners are
// the back-end's (backend/model_store.hpp, backend/learner.hpp). All actors run on one OS thread
// and only touch this between blocking calls.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/mode.hpp"
#include "policy/policy.hpp"
#include "learn/partition.hpp"
#include "report/buffer_streams.hpp"
#include "report/run_record.hpp"
#include "report/selection_log.hpp"
#include "scenario/scenario.hpp"
#include "sim/core/async_record.hpp"
#include "sim/core/device_stream.hpp"
#include "sim/core/downlink_courier.hpp"
#include "sim/core/early_step.hpp"
#include "sim/core/host_slots.hpp"
#include "sim/core/inbox.hpp"
#include "sim/core/link_ledger.hpp"
#include "sim/core/privacy_run.hpp"
#include "sim/core/stop_signal.hpp"
#include "sim/core/time_ledger.hpp"
#include "sim/core/update_record.hpp"

namespace edgetrain::sim {

// What the fault injector and the servers need to know about a device right now.
struct DeviceLiveness {
  int64_t held_samples = 0;  // own samples taken for the update in progress, not yet delivered
  // Sync rounds: a round went on without this device since this time (the end of the last round that
  // sent it a model, or the start); -1 while it is in every round. Read and reset by the device when
  // its next model comes (DeviceRecord::unselected_s).
  double left_out_since_s = -1;
  bool on = true;
  bool pushing = false;            // a push is on the wire: a fault now makes it a failed push
  bool model_outstanding = false;  // sync rounds: a model was sent and no push has come back yet
  bool in_secure_round = false;    // secure aggregation: a round's protocol counts on this device
  bool gone = false;               // off for the rest of the run (its faults or trace say so)
};

class Inbox;
class ActivityFleet;
class EnergyMeter;
class StepCharges;

struct RunState {
  RunState(const scenario::Scenario& s, backend::Backend& b, int64_t raw_sample_bytes)
      : scenario(s),
        mode(s.training, s.devices.size()),
        backend(b),
        raw_sample_bytes(raw_sample_bytes),
        buffer_timeline(s.report.buffer_every_s),
        privacy(make_epsilon_ledger(s)) {}
  const scenario::Scenario& scenario;
  const backend::Mode mode;
  backend::Backend& backend;
  policy::Policies policies;  // the scenario's Python policies (none: the built-in ones)
  const int64_t raw_sample_bytes;  // one dataset sample on the wire (data injection)

  int64_t rounds_done = 0;               // updates applied to the global model
  int64_t bytes_up = 0, bytes_down = 0;  // cumulative, all devices, headers included

  std::vector<report::DeviceRecord> devices;  // sized once before the actors start
  std::vector<TimeLedger> ledgers;            // one per device, pointing into `devices`
  // Per device; null for a device without a stream. Owned here so run() can close the
  // accounting at the end (device actors are killed then).
  std::vector<std::unique_ptr<DeviceStream>> streams;
  // Each device's partition (setup_devices). The order in which a device without a stream reads it (a
  // stream owns its own) is made when the device takes its first batch: most of a population's devices
  // never do.
  void read_parts(const learn::DeviceParts& parts);
  stream::SampleOrder& static_order(size_t device);
  // buffers.csv and buffers_fleet.csv, streamed to the results' temporary folder as the run goes.
  report::BufferStreams buffer_timeline;
  report::SelectionLog selection_log;  // selections.csv, streamed likewise
  LinkLedger links;
  std::vector<simgrid::s4u::Host*> device_hosts;  // per device
  const StepCharges* step_charges = nullptr;      // what each device's steps cost (step_charges.hpp)
  // Per device: the inbox of the aggregator it sends to (its upstream) and its lane there; the
  // upstream is poked when the device's update fails (the aggregator may be waiting for it).
  // And the courier that brings it its models.
  std::vector<Inbox*> upstream;
  // Per host a device runs on (each device's own, or each host slot of a population): its lane to its
  // upstream inbox and its courier. courier() and lane() find a device's.
  std::vector<size_t> lanes;
  std::vector<std::unique_ptr<DownlinkCourier>> couriers;
  HostSlots* slots = nullptr;  // a population's host slots (host_slots.hpp); null: a host per device
  // The activity path (device_path.hpp): the devices' rounds run as activities (activity_fleet.hpp), and
  // there are no device actors and no couriers; null: each device is an actor.
  ActivityFleet* fleet = nullptr;
  DownlinkCourier& courier(size_t device) { return *couriers[slots ? slots->slot_of(device) : device]; }
  // Null: every step starts when its simulated compute does (early_step.hpp).
  std::unique_ptr<EarlySteps> early_steps;
  // Posts `model` to the device's courier; when the device waits for it with nothing ahead, its first
  // step starts on the pool now.
  void post_model(size_t device, std::unique_ptr<ModelMessage> model);
  size_t lane(size_t device) const { return lanes[slots ? slots->slot_of(device) : device]; }
  int64_t samples_injected = 0, bytes_injected = 0;
  std::vector<report::EvalPoint> evals;
  double best_accuracy = 0;
  std::optional<double> time_to_target_s;
  // The crossing lies between these two evaluations; exact to the round when sync rounds were being
  // evaluated as they ended (near the target), else to the evaluation interval.
  std::optional<double> target_bracket_from_s;
  bool target_at_round_end = false;
  // Energy (energy_meter.hpp): null when the platform declares no wattage; everything metered so
  // far when the target accuracy was first reached.
  const EnergyMeter* energy = nullptr;
  std::optional<double> energy_to_target_j;
  // Sync modes: one row per round that closed (rounds.csv).
  std::vector<report::RoundRow> rounds;
  // Runs without such rows: when each round of the run ended (a version applied on arrival, or
  // whatever the topology's root counts as a round).
  std::vector<double> round_ends_s;

  // privacy.dp: the epsilon spent so far (null without differential privacy).
  std::unique_ptr<privacy::EpsilonLedger> privacy;

  // Set once: the first reason to stop wins. Empty while the run goes on.
  std::string status, status_reason;
  void stop(const std::string& why_status, const std::string& reason) {
    if (status.empty()) {
      status = why_status;
      status_reason = reason;
    }
  }
  bool stopping() const { return !status.empty(); }
  // An exception caught by an actor's guard (actor_guard.hpp): the run fails with its message,
  // whatever stopped it before, and run_scenario rethrows it once the results are written.
  std::exception_ptr failure;
  void fail(const std::string& actor, std::exception_ptr error);
  // The stop conditions a server checks between updates: Ctrl-C, stop.rounds (updates applied),
  // stop.sim_time_s.
  bool should_stop(double now) {
    const auto& limits = scenario.stop;
    if (interrupt_requested()) stop("interrupted", "interrupted by a signal");
    if (limits.rounds && rounds_done >= *limits.rounds) stop("completed", "stop.rounds reached");
    if (limits.sim_time_s && now >= *limits.sim_time_s) stop("completed", "stop.sim_time_s reached");
    return stopping();
  }

  // The features' own records, each writing its summary keys (update_record.hpp, async_record.hpp).
  AsyncRecord async;
  UpdateRecord updates;

  // Faults (faults.*) and round timeouts: per-device liveness and the fleet's counters.
  std::vector<DeviceLiveness> live;
  std::vector<const scenario::DeviceFaultSpec*> faults;  // per device, its availability entry (null: always on)
  int64_t secure_rounds_failed = 0;  // secure aggregation: rounds whose protocol fell below its threshold
  report::SecureRoundRecord secure_totals;  // secure aggregation: every round's phases (sites' rounds too)

  // Upload accounting is done by the receiver on delivery, so that a fault striking the sender
  // right after a completed transfer cannot lose it. Each upload is counted once, here: the
  // device's record (with what dense fp32 would have cost), the fleet total and every link of
  // the route to `to` (the receiving aggregator's host).
  void count_upload(size_t device, const simgrid::s4u::Host* to, int64_t bytes, int64_t dense_bytes);
  // A message of `bytes` delivered to `device` on host `at`, sent from `from`: its bytes down, the
  // fleet total and every link of the route.
  void count_download(size_t device, const simgrid::s4u::Host* from, const simgrid::s4u::Host* at, int64_t bytes);
  // A delivered update: its upload, the device's steps and samples, and its liveness flags.
  void count_delivered(const struct UpdateMessage& push, const simgrid::s4u::Host* to);
  // An update lost to a fault (device off, link down): counted as failed, never as sent; the
  // own samples it held were taken from the buffer but never trained. Its aggregator is told (unless
  // the caller tells it later: a poke yields to other actors).
  void count_failed(size_t device, bool was_pushing, bool tell_upstream = true);

 private:
  const learn::DeviceParts* parts_ = nullptr;
  std::vector<std::unique_ptr<stream::SampleOrder>> static_orders_;  // per device; null until used
};

}  // namespace edgetrain::sim
