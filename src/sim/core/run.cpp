// See run.hpp. Actor layout: the server actor runs on the server host and decides when the
// run ends; the observer and the devices are daemons, killed when the server returns, and
// their open time buckets are closed then.
#include "sim/core/run.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

#include "backend/learning.hpp"
#include "backend/uplink.hpp"
#include "learn/torch_module.hpp"
#include "report/bottleneck.hpp"
#include "report/progress.hpp"
#include "report/results_dir.hpp"
#include "report/round_times.hpp"
#include "report/run_record.hpp"
#include "backend/uplink.hpp"
#include "policy/policy.hpp"
#include "sim/core/activity_fleet.hpp"
#include "sim/core/actor_guard.hpp"
#include "sim/core/capacity_check.hpp"
#include "sim/core/device_actor.hpp"
#include "sim/core/device_path.hpp"
#include "sim/core/device_traces.hpp"
#include "sim/core/energy_meter.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/fault_injector.hpp"
#include "sim/core/fidelity.hpp"
#include "sim/core/host_slots.hpp"
#include "sim/core/network_calibration.hpp"
#include "sim/core/observer.hpp"
#include "sim/core/platform.hpp"
#include "sim/core/privacy_run.hpp"
#include "sim/core/run_warnings.hpp"
#include "sim/core/simgrid_flags.hpp"
#include "sim/core/split_summary.hpp"
#include "sim/core/step_charges.hpp"
#include "sim/core/stop_signal.hpp"
#include "sim/core/strategy_summary.hpp"
#include "sim/core/transfer_log.hpp"
#include "sim/core/wire.hpp"
#include "sim/core/wire_plan.hpp"
#include "sim/topology/topology.hpp"
#include "stream/rates.hpp"
#include "util/memory.hpp"
#include "util/seed.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

stream::RateDistribution rate_distribution(const scenario::RateSpec& r) {
  stream::RateDistribution d;
  d.dist = r.dist;
  d.value = r.value;
  d.mean = r.mean;
  d.spread = r.spread;
  d.std = r.std;
  d.values = r.values;
  return d;
}

// SimGrid 3.32's ns-3 binding aborts on large messages; every run sends the dense model.
void check_ns3_message_size(const backend::ModelCost& cost) {
  if (simgrid::config::get_value<std::string>("network/model") != "ns-3") return;
  const int64_t bytes = message_bytes(cost.dense_bytes());
  if (bytes > kNs3MaxMessageBytes) {
    throw PlatformError("--cfg=network/model:ns-3: the model's messages are " + std::to_string(bytes) +
                        " bytes, and SimGrid 3.32's ns-3 binding aborts on messages over " +
                        std::to_string(kNs3MaxMessageBytes) +
                        " bytes (use a smaller model or the default network model)");
  }
}

std::string describe_model(const backend::ChargedModel& model) {
  std::string layers;
  if (model.layers.size() <= 40) {
    for (const auto& l : model.layers) {
      std::string shape;
      for (auto d : l.shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
      layers += "    " + l.name + " [" + shape + "]\n";
    }
  }
  return "model: " + model.cost.name + ", " + std::to_string(model.cost.params) + " parameters, " +
         std::to_string(static_cast<long long>(model.cost.step_flops_per_sample)) + " training FLOPs per sample, " +
         std::to_string(model.layers.size()) + " tensors\n" + layers;
}

// A device's class, for grouping: the host's `class` property (fleet platforms), else its name
// without a trailing number and separator ("pi-3" -> "pi").
std::string device_class(const sg4::Host& host) {
  if (const char* c = host.get_property("class")) return c;
  std::string name = host.get_name();
  const size_t digits = name.find_last_not_of("0123456789");
  if (digits == std::string::npos || digits + 1 == name.size()) return name;
  name.resize(digits + 1);
  while (!name.empty() && (name.back() == '-' || name.back() == '_' || name.back() == '.')) name.pop_back();
  return name.empty() ? host.get_name() : name;
}

// validate's summary of a fleet beyond its first `shown` devices: per class (in order of first
// appearance) the devices, and the range of their speed, training samples and batch.
std::string describe_classes(const std::vector<report::DeviceRecord>& devices,
                             const learn::DeviceParts& parts, size_t shown) {
  struct Class {
    size_t count = 0;
    double speed_lo = 0, speed_hi = 0;
    size_t samples_lo = 0, samples_hi = 0;
    int64_t batch_lo = 0, batch_hi = 0;
  };
  std::vector<std::string> order;
  std::map<std::string, Class> classes;
  for (size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    const size_t samples = parts.of(i)->size();
    auto [it, added] = classes.try_emplace(d.device_class);
    Class& c = it->second;
    if (added) {
      order.push_back(d.device_class);
      c = {0, d.host_speed_flops, d.host_speed_flops, samples, samples, d.batch_size, d.batch_size};
    }
    c.count += 1;
    c.speed_lo = std::min(c.speed_lo, d.host_speed_flops);
    c.speed_hi = std::max(c.speed_hi, d.host_speed_flops);
    c.samples_lo = std::min(c.samples_lo, samples);
    c.samples_hi = std::max(c.samples_hi, samples);
    c.batch_lo = std::min(c.batch_lo, d.batch_size);
    c.batch_hi = std::max(c.batch_hi, d.batch_size);
  }
  auto range = [](const std::string& lo, const std::string& hi) { return lo == hi ? lo : lo + "-" + hi; };
  auto g = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v / 1e9);
    return std::string(b);
  };
  std::string out = "  ... and " + std::to_string(devices.size() - shown) + " more devices; all " +
                    std::to_string(devices.size()) + " by class:\n";
  for (const std::string& name : order) {
    const Class& c = classes.at(name);
    out += "  class " + name + ": " + std::to_string(c.count) + " devices, " + range(g(c.speed_lo), g(c.speed_hi)) +
           " GFLOP/s per core, " + range(std::to_string(c.samples_lo), std::to_string(c.samples_hi)) +
           " training samples, batch " + range(std::to_string(c.batch_lo), std::to_string(c.batch_hi)) + "\n";
  }
  return out;
}

// The critical link of a round's slowest device: the link of its route to the aggregator that ran
// closest to its capacity while it carried traffic (utilisation when busy; ties, to a relative 1e-9:
// the first on the route). Not the mean over the run: under client selection a device's own access link carries
// traffic only in the rounds it takes part in, where it may be saturated, while a shared link busy in
// every round has the larger mean.
void resolve_critical_link(report::CriticalPath& critical, const sg4::Host* device, const sg4::Host* server,
                           const std::vector<report::LinkRow>& rows) {
  std::vector<sg4::Link*> route;
  double latency = 0;
  device->route_to(server, route, &latency);
  double busiest = -1;
  for (const auto* l : route) {
    const auto row =
        std::find_if(rows.begin(), rows.end(), [&](const report::LinkRow& r) { return r.link == l->get_name(); });
    const double u = row == rows.end() ? 0.0 : report::utilization(*row, row->busy_s);
    if (u > busiest * (1 + 1e-9)) {  // equal up to rounding (a link exactly full behind another): the first
      busiest = u;
      critical.link = l->get_name();
      critical.link_bandwidth_bps = l->get_bandwidth() * 8;
    }
  }
}

// Per device: its record, time ledger, batch size and stream. The stream's samples come from
// the device's partition in its seeded order; without a stream, the device reads the same
// order directly (DeviceActor).
void setup_devices(RunState& state, const PlatformHosts& hosts, const learn::DeviceParts& parts,
                   const DeviceTraces& traces) {
  const scenario::Scenario& sc = state.scenario;
  const size_t n = sc.devices.size();
  state.devices.resize(n);
  state.read_parts(parts);
  state.ledgers.reserve(n);
  state.streams.reserve(n);
  state.device_hosts = hosts.devices;
  state.live.resize(n);
  state.upstream.assign(n, nullptr);
  // A courier and a lane per host a device runs on: its own, or a population's slots (on the activity
  // path a lane only).
  if (state.slots) {
    for (size_t k = 0; k < state.slots->count(); ++k)
      state.couriers.push_back(std::make_unique<DownlinkCourier>(state.slots->host(k)->get_name()));
  } else if (!state.fleet) {
    for (size_t i = 0; i < n; ++i) state.couriers.push_back(std::make_unique<DownlinkCourier>(sc.devices[i].name));
  }
  state.lanes.assign(state.slots ? state.slots->count() : n, 0);
  state.faults = device_faults(sc, state.slots ? std::vector<sg4::Host*>() : hosts.devices, traces.availability);
  const scenario::Population* population = sc.population.get();
  const int64_t model_memory_bytes = backend::model_memory_vectors(sc) * state.backend.cost().dense_bytes();
  for (size_t i = 0; i < n; ++i) {
    const scenario::DeviceSpec& spec = sc.devices[i];
    auto& record = state.devices[i];
    record.device = spec.name;
    if (population) {
      // A population's device runs on the slots of its site.
      const fleet::Device& d = population->fleet.devices[i];
      record.host = population->fleet.sites[d.site_index].name;
      record.device_class = population->spec.classes[d.class_index].name;
    } else {
      record.host = hosts.devices[i]->get_name();
      record.device_class = device_class(*hosts.devices[i]);
    }
    record.host_speed_flops = state.step_charges->speed(i);  // the platform's, or the capacity trace's
    record.model_memory_bytes = model_memory_bytes;
    record.partition_samples = static_cast<int64_t>(parts.of(i)->size());
    state.ledgers.emplace_back(&record, 0.0);
    int64_t batch = sc.training.batch_size;
    std::unique_ptr<DeviceStream> stream;
    if (spec.stream) {
      const stream::RateDistribution dist = rate_distribution(spec.stream->rate);
      // A trace gives the rate itself (and the scenario may then have none to draw).
      const double rate = spec.stream->trace.empty() ? stream::draw_rate(dist, sc.seed, i) : 0.0;
      const int64_t sample_bytes = spec.stream->sample_bytes > 0 ? spec.stream->sample_bytes : state.raw_sample_bytes;
      stream::SampleOrder order(parts.of(i), util::derive_seed(sc.seed, "sample-order", i));
      stream = std::make_unique<DeviceStream>(*spec.stream, rate, sample_bytes, std::move(order),
                                              util::derive_seed(sc.seed, "arrivals", i));
      record.stream = report::StreamRecord{};
      stream->fill(*record.stream);  // the rate, for validate's description
      if (state.mode.batch_from_stream_rate()) {
        const auto b = static_cast<int64_t>(std::llround(stream->nominal_rate() * sc.training.window_s));
        batch = std::clamp(b, sc.training.batch_min, sc.training.batch_max);
      }
      const auto policy = stream->buffer().policy();
      if ((policy == stream::BufferPolicy::DropOldest || policy == stream::BufferPolicy::DropNewest) &&
          spec.stream->buffer.capacity_samples < batch) {
        throw stream::StreamError("devices[" + std::to_string(i) + "].stream.buffer.capacity_samples: " +
                                  std::to_string(spec.stream->buffer.capacity_samples) + " cannot hold one batch of " +
                                  std::to_string(batch) + " samples");
      }
    }
    record.batch_size = batch;
    state.streams.push_back(std::move(stream));
  }
}

// At the end of the run: arrivals up to the end are counted (they are buffered), and each
// streaming device gets its final buffers.csv row and stream totals.
void close_streams(RunState& state, double end) {
  for (size_t i = 0; i < state.streams.size(); ++i) {
    DeviceStream* stream = state.streams[i].get();
    if (!stream) continue;
    if (!state.live[i].on && stream->loses_while_off()) {
      state.devices[i].stream->samples_lost_offline += stream->lose_until(end);  // off until the end
    }
    stream->catch_up(end);
    stream->fill(*state.devices[i].stream);
    state.devices[i].buffer_peak_bytes = state.devices[i].stream->buffer_peak_samples * stream->sample_bytes();
    state.buffer_timeline.finish(i, stream->point(end, state.devices[i].device));
  }
}

// The end of the run: every device's time and stream accounting closed, and the final model
// evaluated, unless the run was interrupted (it ends with the evaluations so far: one more could
// take long).
void close_run(RunState& state, backend::ModelEvaluation& model, double end) {
  for (size_t i = 0; i < state.devices.size(); ++i) {
    // A device on and out of the rounds at the end waits for a model that does not come.
    const DeviceLiveness& live = state.live[i];
    if (live.left_out_since_s >= 0 && live.on && !live.model_outstanding) {
      state.devices[i].unselected_s += std::max(0.0, end - std::max(state.ledgers[i].mark(), live.left_out_since_s));
    }
  }
  for (auto& ledger : state.ledgers) ledger.close(end);
  for (size_t i = 0; i < state.devices.size(); ++i) {
    state.devices[i].samples_held_at_end = state.live[i].held_samples;
    // Sync rounds: a model still out when the run ends was selected and never delivered.
    if (state.live[i].model_outstanding) state.updates.selections_missing += 1;
  }
  close_streams(state, end);
  const bool interrupted = state.status == "interrupted" && !state.evals.empty();
  if (!state.backend.trains()) return;
  if (!interrupted &&
      (state.evals.empty() || state.evals.back().sim_time_s < end || state.evals.back().round < state.rounds_done)) {
    Observer::evaluate_now(state, model, end);
  }
}

// Each device's and link's energy over the run, and the totals for summary.json.
void record_energy(RunState& state, std::vector<report::LinkRow>& links, double end) {
  if (!state.energy) return;
  const std::vector<std::optional<double>> devices = state.energy->per_device();
  for (size_t i = 0; i < devices.size(); ++i) state.devices[i].energy_j = devices[i];
  for (report::LinkRow& l : links) l.energy_j = state.energy->link_j(l, end);
}

nlohmann::json energy_json(const RunState& state) {
  if (!state.energy) return nullptr;
  const EnergyTotals t = state.energy->totals(state.links);
  auto j = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  // The devices that took part (picked for a round, or trained at all) beside the whole fleet's.
  std::optional<double> participants_j;
  int64_t participants = 0;
  for (const report::DeviceRecord& d : state.devices) {
    if (d.rounds_selected == 0 && d.steps == 0) continue;
    participants += 1;
    if (d.energy_j) participants_j = participants_j.value_or(0.0) + *d.energy_j;
  }
  return {{"devices_j", j(t.devices_j)},
          {"participants", participants},
          {"participants_j", j(participants_j)},
          {"aggregators_j", j(t.aggregators_j)},
          {"links_j", j(t.links_j)},
          {"total_j", j(t.total_j)},
          {"energy_to_target_j", j(state.energy_to_target_j)}};
}

// The durations of the run's rounds (summary.json's round_s): each closed sync round of rounds.csv
// (the root aggregator's rounds, empty rounds too), else the time between successive rounds' ends
// from the start of the run (versions applied on arrival, or the topology's rounds: round_ends_s).
std::vector<double> round_durations(const RunState& state) {
  if (state.rounds.empty()) return report::gaps(state.round_ends_s, 0.0);
  std::vector<double> out;
  for (const report::RoundRow& r : state.rounds) out.push_back(r.end_s - r.start_s);
  return out;
}

// summary.json's content (all but wall time), and each adaptive device's CNC ratio.
report::RunSummary summarize(RunState& state, const Topology& topology, double end) {
  report::RunSummary summary;
  const scenario::Scenario& scenario = state.scenario;
  const backend::ModelCost& cost = state.backend.cost();
  summary.status = state.status;
  summary.status_reason = state.status_reason;
  summary.rounds = state.rounds_done;
  summary.sim_time_s = end;
  // No evaluation at all only when a failure prevented it: null in summary.json.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  summary.final_test_accuracy = state.evals.empty() ? nan : state.evals.back().test_accuracy;
  summary.final_test_loss = state.evals.empty() ? nan : state.evals.back().test_loss;
  summary.best_test_accuracy = state.backend.trains() ? state.best_accuracy : nan;
  summary.time_to_target_s = state.time_to_target_s;
  if (state.time_to_target_s) {
    summary.extra["time_to_target_bracket_s"] = {state.target_bracket_from_s.value_or(0.0), *state.time_to_target_s};
    summary.extra["time_to_target_exact_to"] = state.target_at_round_end ? "round" : "evaluation interval";
  }
  summary.bytes_up = state.bytes_up;
  summary.bytes_down = state.bytes_down;
  summary.extra["round_s"] = report::round_summary(round_durations(state));
  summary.model_params = cost.params;
  int64_t steps = 0, compressed_steps = 0, lost_offline = 0, restarts = 0, lost_in_faults = 0;
  double offline_s = 0;
  const bool adaptive = state.scenario.compression.adaptive.has_value();
  for (size_t i = 0; i < state.devices.size(); ++i) {
    auto& d = state.devices[i];
    offline_s += d.offline_s;
    restarts += d.restarts;
    lost_in_faults += d.samples_lost_in_faults;
    // Only adaptive compression counts (asking every learner would make a population's learners).
    if (const int64_t compressed = adaptive ? state.backend.device(i).compressed_updates() : -1; compressed >= 0) {
      d.cnc_ratio = d.steps > 0 ? static_cast<double>(compressed) / d.steps : 0.0;
      steps += d.steps;
      compressed_steps += compressed;
    }
    summary.bytes_up_uncompressed += d.bytes_up_uncompressed;
    summary.samples_trained += d.samples_trained;
    if (!d.stream) continue;
    summary.samples_arrived = summary.samples_arrived.value_or(0) + d.stream->samples_arrived;
    summary.samples_dropped = summary.samples_dropped.value_or(0) + d.stream->samples_dropped;
    lost_offline += d.stream->samples_lost_offline;
    summary.buffer_peak_samples = std::max(summary.buffer_peak_samples.value_or(0), d.stream->buffer_peak_samples);
  }
  if (scenario.compression.adaptive)
    summary.cnc_ratio = steps > 0 ? static_cast<double>(compressed_steps) / steps : 0.0;
  summary.extra["samples_injected"] = state.samples_injected;
  summary.extra["bytes_injected"] = state.bytes_injected;
  summary.extra["mode"] = scenario.training.mode;
  summary.extra["topology"] = scenario.topology.kind;
  // What crossed into and out of the server, and the topology's own keys.
  topology.summarize(state, summary.extra);
  if (nlohmann::json privacy = privacy_summary(state); !privacy.is_null()) summary.extra["privacy"] = std::move(privacy);
  const bool on_arrival = state.mode.applies_on_arrival();
  state.async.summarize(summary.extra, on_arrival, scenario.training.buffer_size, state.rounds_done);
  state.updates.summarize(summary.extra, state.devices, on_arrival);
  summary.extra["offline_s"] = offline_s;
  summary.extra["restarts"] = restarts;
  summary.extra["samples_lost_in_faults"] = lost_in_faults;
  summary.extra["samples_lost_offline"] = lost_offline;
  summary.seed = scenario.seed;
  summary.extra["model_step_flops_per_sample"] = cost.step_flops_per_sample;
  // What was charged, and how: the trained model's costs, or a catalogued model's (cost_as or a
  // timing-only catalogue model); sizes declared for data-dependent compressors.
  summary.extra["compute"] = scenario.training.compute;
  summary.extra["charged_model"] = cost.name;
  nlohmann::json declared = nlohmann::json::object();
  for (const auto& [key, ratio] : state.backend.declared_sizes()) declared[key] = ratio;
  summary.extra["declared_sizes"] = declared;
  summary.extra["message_header_bytes"] = kHeaderBytes;
  summary.extra["network_model"] = simgrid::config::get_value<std::string>("network/model");
  summary.extra["network_solver"] = simgrid::config::get_value<std::string>("network/optim");
  summary.extra["devices"] = static_cast<int64_t>(scenario.devices.size());
  // Sync rounds: the devices selected per round (training.selection; every device by default).
  summary.extra["selection"] = scenario.training.selection.kind;
  summarize_strategy(state, summary.extra);
  summarize_split(state, summary.extra);
  nlohmann::json overrides = nlohmann::json::array();
  for (const auto& o : scenario.platform_overrides) {
    overrides.push_back({{"key", o.key}, {"value", o.value}, {"before", o.before}});
  }
  summary.extra["platform_overrides"] = overrides;
  summary.extra["energy"] = energy_json(state);
  if (!summary.extra["energy"].is_null()) summary.extra["energy_j"] = summary.extra["energy"]["total_j"];
  return summary;
}

// Everything a run or a validation loads before simulating, in the order that reports the
// cheapest errors first: platform and hosts, then the learning side (backend/learning.hpp: the
// memory estimate before anything large is allocated, then data, model, partition, back-end).
struct Prepared {
  std::unique_ptr<sg4::Engine> engine;
  PlatformHosts hosts;
  std::unique_ptr<EnergyMeter> energy;
  std::vector<LinkFaultPlan> link_faults;
  std::unique_ptr<backend::Learning> learning;
  // Made first, destroyed first: its aggregators' stores and inboxes go before the back-end and the engine.
  std::unique_ptr<Topology> topology;
  // network.model tcp: the slow-start model, from network.calibration's file or at Linux's parameters
  // (no class, no report), and the callbacks that apply it (they point at it); null under cm02 or ns-3.
  std::unique_ptr<packet::Calibration> calibration;
  bool calibrated = false;
  std::unique_ptr<NetworkCalibration> calibration_hooks;
  std::unique_ptr<StepCharges> step_charges;
  std::unique_ptr<HostSlots> slots;  // a population's (null: a host per device)
  DevicePath device_path;            // devices as activities or as actors (device_path.hpp)
  DeviceTraces traces;  // traces.*: each device's off intervals (the fault injector points at them), speed, bandwidth
  policy::Policies policies;  // the Python classes the scenario names
};

// network.model and network.calibration, checked against the loaded platform and applied to the flow
// model: the slow-start TCP model on CM02 unless network.model is cm02 or SimGrid's model is not CM02
// (--cfg=network/model:ns-3 times packets itself).
void apply_network_model(Prepared& p, const scenario::Scenario& scenario) {
  const std::filesystem::path& file = scenario.network.calibration;
  const std::string simgrid_model = simgrid::config::get_value<std::string>("network/model");
  if (!file.empty() && scenario.network.model == "cm02")
    throw PlatformError("network.calibration: a calibration fits the slow-start TCP model; not with network.model cm02");
  if (!file.empty() && simgrid_model != "CM02")
    throw PlatformError("network.calibration: a calibration corrects the flow model; not with --cfg=network/model:" +
                        simgrid_model);
  if (scenario.network.model != "tcp" || simgrid_model != "CM02") return;
  if (file.empty()) {
    p.calibration = std::make_unique<packet::Calibration>();  // the model at its defaults for every route
  } else {
    p.calibration = std::make_unique<packet::Calibration>(packet::read_calibration(file));
    p.calibrated = true;
    if (p.calibration->fingerprint != platform_fingerprint(*p.engine)) {
      throw PlatformError("network.calibration: " + file.string() + " was made for " + p.calibration->platform +
                          ", not for this scenario's platform (its host and link names differ); run edgetrain "
                          "calibrate on " + scenario.platform.filename().string());
    }
  }
  p.calibration_hooks = std::make_unique<NetworkCalibration>();
  p.calibration_hooks->install(*p.engine);
  p.calibration_hooks->activate(p.calibration.get());
}

nlohmann::json fidelity_of(const Prepared& p, const scenario::Scenario& scenario) {
  FidelityInput in;
  in.network_model = simgrid::config::get_value<std::string>("network/model");
  in.tcp_model = p.calibration != nullptr;
  in.calibration = p.calibrated ? p.calibration.get() : nullptr;
  in.calibration_file = scenario.network.calibration.filename().string();
  in.server = p.hosts.server;
  if (!p.slots) in.devices.assign(p.hosts.devices.begin(), p.hosts.devices.end());  // a population's hosts vary
  in.message_bytes = message_bytes(p.learning->backend->cost().dense_bytes());
  in.model = scenario.model.name;
  in.profiles = p.step_charges->profiles();
  in.profile_file = p.step_charges->from_file() ? scenario.training.compute_profile_file.filename().string() : "";
  return fidelity_json(in);
}

Prepared prepare(const scenario::Scenario& scenario, const RunOptions& options) {
  Prepared p;
  p.topology = make_topology(scenario);
  const bool timing_only = scenario.training.timing_only();
  // LibTorch loads (0.6 s) while the platform and the data do: a real run builds networks, and a
  // TorchScript model is measured even timing-only.
  const learn::ModulePreload preload(!timing_only || scenario.model.name == "torchscript");
  const platform::PlatformInfo info = read_platform(scenario);
  // LibTorch runs inside actors only when one thread runs the steps (worker_pool.hpp).
  const int stack_kib = timing_only ? kTimingOnlyStackKiB : options.threads > 1 ? kSmallStackKiB : 0;
  // Two actors per device (per host slot of a population), and those the topology adds.
  const auto n = static_cast<double>(scenario.population ? scenario.population->slots() : scenario.devices.size());
  const double extra_actors = p.topology->extra_actors();
  const auto guarded = static_cast<double>(timing_only ? kGuardedTimingOnlyDevices : kGuardedDevices);
  const bool guard_pages = 2 * n + extra_actors <= 2 * guarded;
  p.engine = keeping_interrupt_handler([&] { return make_engine(options.simgrid_args, info, stack_kib, guard_pages); });
  init_energy_plugins(info);  // before the platform is loaded
  p.device_path = choose_device_path(scenario, static_cast<bool>(options.crosscheck));
  p.hosts = load_and_check_platform(*p.engine, scenario, info, *p.topology);
  if (scenario.population) p.slots = std::make_unique<HostSlots>(*p.engine, *scenario.population, p.hosts.server);
  // A population's hosts are slots: they follow the devices placed on them (no traces, no energy per device).
  const std::vector<sg4::Host*> own_hosts = p.slots ? std::vector<sg4::Host*>() : p.hosts.devices;
  apply_network_model(p, scenario);
  p.energy = std::make_unique<EnergyMeter>(*p.engine, info, own_hosts);
  p.link_faults = plan_link_faults(*p.engine, scenario);
  p.learning = backend::prepare_learning(
      scenario, {.threads = options.threads,
                 .devices_as_activities = p.device_path.activities,
                 .topology_memory = p.topology->memory(p.hosts),
                 .delta_link = p.topology->delta_link(),
                 .once_allowed = [&p, &scenario](const backend::ChargedModel& charged) {
                   // What the topology builds (and checks) once the estimate allows it, before any output.
                   p.topology->build(p.hosts);
                   check_ns3_message_size(charged.cost);
                   check_privacy(scenario, charged.cost.params);
                 },
                 .place_learners = options.place_learners,
                 .placement = options.placement});
  check_secure_round_timeout(scenario, p.hosts.server, p.hosts.devices);
  // The Python policies load once the model is known (their arrays' shapes); validate loads them too.
  backend::Backend& learning_backend = *p.learning->backend;
  p.policies = policy::load_policies(
      scenario, p.learning->model ? backend::compress_layers(p.learning->model->layers()) : std::vector<compress::Layer>(),
      learning_backend.cost().params);
  if (p.policies.strategy) learning_backend.use_strategy(p.policies.strategy);
  p.traces = plan_device_traces(scenario, p.learning->parts, own_hosts);
  apply_trace_bandwidths(p.traces, scenario, own_hosts, p.hosts.server);
  // A split model's devices are charged their part's step (the server's part runs on its host).
  const backend::ChargedModel& charged = p.learning->charged;
  p.step_charges = std::make_unique<StepCharges>(scenario, charged.split ? charged.device_cost : p.learning->backend->cost(),
                                                 p.hosts.devices, p.traces.speed_flops, p.slots.get());
  if (charged.split) p.step_charges->set_split(&*charged.split);
  if (p.slots) p.slots->set_traced_bandwidths(&p.traces.bandwidth_bps);
  return p;
}

}  // namespace

std::string check_scenario(const scenario::Scenario& scenario, const RunOptions& options) {
  const Prepared p = prepare(scenario, options);
  RunState state(scenario, *p.learning->backend, p.learning->raw_sample_bytes);
  state.policies = p.policies;
  state.step_charges = p.step_charges.get();
  state.slots = p.slots.get();
  backend::during("setting up the devices", [&] { setup_devices(state, p.hosts, p.learning->parts, p.traces); });
  std::string out = "platform: " + scenario.platform.string() + " (" + std::to_string(p.engine->get_host_count()) +
                    " hosts), server " + p.hosts.server->get_name() + "\n";
  out += p.topology->describe();
  char line[256];
  // A fleet is summarised: the first kDeviceLines devices one per line, then every class in one line.
  constexpr size_t kDeviceLines = 20;
  for (size_t i = 0; i < scenario.devices.size() && i < kDeviceLines; ++i) {
    const auto& d = state.devices[i];
    std::snprintf(line, sizeof line, "  device %s on %s: %.3g GFLOP/s per core, %zu training samples, batch %ld",
                  d.device.c_str(), d.host.c_str(), d.host_speed_flops / 1e9, p.learning->parts.of(i)->size(),
                  static_cast<long>(d.batch_size));
    out += line;
    if (d.stream) {
      std::snprintf(line, sizeof line, ", stream %.2f samples/s (%s, %s)", d.stream->rate_samples_per_s,
                    scenario.devices[i].stream->arrivals.c_str(), scenario.devices[i].stream->buffer.policy.c_str());
      out += line;
    }
    out += "\n";
  }
  if (scenario.devices.size() > kDeviceLines) out += describe_classes(state.devices, p.learning->parts, kDeviceLines);
  out += "data: " + std::to_string(p.learning->shape.train_samples) + " training, " + std::to_string(p.learning->shape.test_samples) +
         " test samples" + (p.learning->model ? "" : " (sizes only: timing-only runs read no data)") + "\n";
  out += describe_model(p.learning->charged);
  out += fidelity_text(fidelity_of(p, scenario));
  const DevicePath& path = p.device_path;
  out += path.activities ? "devices: simulated as activities, " + std::to_string(ActivityFleet::kDevicesPerDriver) +
                               " per driver actor (no actor per device)\n"
                         : "devices: one actor each (" + path.reason + ")\n";
  out += "dense message size: " + std::to_string(message_bytes(p.learning->backend->cost().dense_bytes())) +
         " bytes (fp32 payload + " + std::to_string(kHeaderBytes) + " bytes header)\n";
  const auto& strategy = p.policies.strategy;
  out += wire_plan_text(scenario, p.learning->charged,
                        {strategy ? strategy->extra_model_bytes() : 0, strategy ? strategy->extra_update_bytes() : 0});
  const std::optional<double> available = util::memory_for_this_process();
  out += "memory: needs " + p.learning->memory.describe() +
         (available ? ", " + util::format_bytes(*available) + " available" : std::string(", available memory unknown")) +
         "\n";
  out += p.energy->describe() + "\n";
  out += describe_privacy(scenario, p.learning->backend->cost().params);
  return out;
}

int run_scenario(const scenario::Scenario& scenario, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  report::ResultsDir results(options.out_dir);  // checks --out and takes its lock before anything is simulated
  Prepared p = prepare(scenario, options);
  RunState state(scenario, *p.learning->backend, p.learning->raw_sample_bytes);
  state.policies = p.policies;
  state.step_charges = p.step_charges.get();
  state.slots = p.slots.get();
  std::error_code ec;
  const std::string kept = std::filesystem::exists(results.folder(), ec) ? "the previous results are left as they were"
                                                                         : "no results were written";
  state.buffer_timeline.open(results.temporary(), options.out_dir, kept);
  state.selection_log.open(results.temporary(), options.out_dir, kept);
  // Devices as activities driven by a few actors per round, or one actor each (device_path.hpp).
  std::unique_ptr<ActivityFleet> fleet;
  if (p.device_path.activities) {
    fleet = std::make_unique<ActivityFleet>(state, p.hosts.server);
    state.fleet = fleet.get();
  }
  backend::during("setting up the devices", [&] { setup_devices(state, p.hosts, p.learning->parts, p.traces); });
  state.early_steps = EarlySteps::for_run(state);
  if (p.energy->active()) state.energy = p.energy.get();
  std::vector<std::string> warnings = run_warnings(scenario, results, options.out_dir, options.warn_replacing);
  if (auto solver = solver_warning()) warnings.push_back(*solver);
  print_warnings(warnings);  // set-up went well
  // The rate of every busy link over each interval between two clock advances (capacity_check.hpp).
  // Not under ns-3: its links have no flow-solver constraint to read (Link::get_usage crashes there),
  // its packets cannot overfill a link, and the average-when-busy check still runs.
  if (simgrid::config::get_value<std::string>("network/model") != "ns-3")
    sg4::Engine::on_time_advance_cb([&state](double delta) { state.links.sample_rates(delta); });

  // The live line on a terminal, redrawn as the simulated clock advances (report/progress.hpp).
  const report::ProgressLimits limits{.pushes = state.mode.applies_on_arrival(),
                                      .evaluates = p.learning->backend->trains(),
                                      .rounds = scenario.stop.rounds,
                                      .sim_time_s = scenario.stop.sim_time_s};
  report::Progress progress(!options.quiet && report::stderr_is_terminal(), limits, options.progress_fd);
  if (progress.enabled()) {
    sg4::Engine::on_time_advance_cb([&progress, &state](double) {
      const auto accuracy = state.evals.empty() ? std::nullopt : std::optional(state.evals.back().test_accuracy);
      progress.update({sg4::Engine::get_clock(), state.rounds_done, accuracy});
    });
  }
  TransferLog transfers([&state] { return state.rounds_done + 1; });
  if (options.crosscheck) state.links.record_transfers(&transfers);
  bool deadlocked = false;
  sg4::Engine::on_deadlock_cb([&deadlocked] { deadlocked = true; });

  // The aggregators (topology.hpp); the devices know only their upstream inbox and courier.
  const Root root = p.topology->start(state, p.hosts);
  if (p.learning->backend->trains()) {
    sg4::Actor::create("observer", root.host, guarded(state, Observer(state, *root.evaluated)))->daemonize();
  }
  // A population's devices start when a round places them (host_slots.hpp).
  // On the activity path, none: fleet drivers run each round's devices.
  for (size_t i = 0; !state.slots && !state.fleet && i < scenario.devices.size(); ++i) {
    sg4::Actor::create(scenario.devices[i].name, p.hosts.devices[i],
                       guarded(state, DeviceActor(state, i, *state.upstream[i])))
        ->daemonize();
  }
  start_fault_actors(state, root.host, p.link_faults);
  end_run_on_interrupt([&state] { state.stop("interrupted", "interrupted by a signal"); });

  if (!options.quiet) {
    std::fprintf(stderr, "edgetrain: %s: %zu devices, %s, %ld parameters\n", scenario.name.c_str(),
                 scenario.devices.size(), p.learning->backend->cost().name.c_str(), static_cast<long>(p.learning->backend->cost().params));
  }
  try {
    p.engine->run();
  } catch (const std::exception& e) {
    state.stop("failed", std::string("simulation error: ") + e.what());
  }
  if (deadlocked) state.stop("failed", "the simulation deadlocked (actors blocked with nothing left to happen)");
  progress.clear();
  p.learning->backend->quiesce();
  const double end = sg4::Engine::get_clock();
  try {
    close_run(state, *root.evaluated, end);
  } catch (...) {
    state.fail("end of the run", std::current_exception());  // most often what already failed in an actor
  }
  state.stop("completed", "all stop conditions checked");

  std::vector<report::LinkRow> links = state.links.records(end);
  record_energy(state, links, end);
  report::RunSummary summary = summarize(state, *p.topology, end);
  report::CriticalPath critical = report::slowest_device(state.rounds, state.devices);
  if (!critical.device.empty()) {
    const auto it = std::find_if(state.devices.begin(), state.devices.end(),
                                 [&](const report::DeviceRecord& d) { return d.device == critical.device; });
    const auto device = static_cast<size_t>(it - state.devices.begin());
    resolve_critical_link(critical, state.device_hosts[device], state.upstream[device]->host(), links);
  }
  summary.extra["fidelity"] = fidelity_of(p, scenario);
  summary.extra["bottleneck"] = report::bottleneck_json(state.devices, links, state.rounds, critical, end);
  const CapacityCheck capacity = check_capacity(state.links, links);
  summary.extra["capacity"] = capacity.summary;
  std::vector<std::string> late = capacity.warnings;
  if (auto clipped = secure_clipping_warning(state)) late.push_back(*clipped);
  print_warnings(late);
  warnings.insert(warnings.end(), late.begin(), late.end());
  summary.extra["warnings"] = warnings;
  state.buffer_timeline.close(end);  // its files are complete before summary.json is written
  state.selection_log.close();
  summary.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (!scenario.platform_xml.empty()) results.write("platform.xml", scenario.platform_xml);  // what was simulated
  if (state.policies.any()) results.write("policy_metrics.csv", policy::metrics_csv(*state.policies.metrics));
  if (options.crosscheck && summary.status != "interrupted" && !state.failure) {
    int64_t local = 0;
    const packet::Workload workload = transfers.workload(local);
    for (const auto& [name, content] : options.crosscheck(workload, local)) results.write(name, content);
  }
  report::write_run_outputs(
      results, {scenario.resolved, summary, state.evals, state.devices, links, state.async.staleness, state.rounds,
                scenario.population != nullptr});
  results.commit();
  std::printf("%s", report::summary_text(summary, options.out_dir.string()).c_str());
  // An exception an actor threw: the CLI turns it into its message and exit status (2 for bad input).
  if (state.failure) std::rethrow_exception(state.failure);

  if (summary.status == "diverged") return 3;
  if (summary.status == "interrupted") return 130;
  if (summary.status == "failed") return 1;
  return 0;
}

}  // namespace edgetrain::sim
