// What a run records, and the writers of results/<run>/: metrics.csv (evaluation curve),
// devices.csv (per-device totals), buffers.csv (stream buffer timeline) and buffers_fleet.csv
// (its fleet total), links.csv, rounds.csv (sync rounds), staleness.csv (async), summary.json and
// scenario.json. Column and key names carry their units. Simulation-derived files hold no wall-clock values, so the
// same scenario and seed give byte-identical files; wall time lives only in summary.json.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "util/boxed.hpp"

namespace edgetrain::report {

struct EvalPoint {
  double sim_time_s = 0;
  int64_t round = 0;  // rounds completed when the model was evaluated
  double test_accuracy = 0, test_loss = 0;
  int64_t bytes_up = 0, bytes_down = 0;  // cumulative, all devices
  // Energy consumed so far (sim/core/energy_meter.hpp): the fleet's devices, and everything metered
  // (devices, aggregators, links); unset when nothing in the group has a wattage.
  std::optional<double> devices_energy_j, energy_j;
  std::optional<double> model_spread;    // peers without a server: mean L2 distance of the devices' models to their average
  std::optional<double> epsilon;         // privacy.dp: epsilon spent by the rounds evaluated
  std::optional<double> attack_success;  // attack backdoor: the share of stamped test samples led to its target
  // Personalisation: the devices' personalised accuracy (their mean and 10th percentile) and how many devices.
  std::optional<double> personal_accuracy_mean, personal_accuracy_p10;
  std::optional<int64_t> personal_devices;
};

// Stream accounting of one device (absent for a device without a stream). Own-stream
// samples only: samples_arrived == samples_trained + samples_dropped + buffer_final_samples.
struct StreamRecord {
  double rate_samples_per_s = 0;  // nominal rate (what a scadles batch is sized from)
  int64_t samples_arrived = 0, samples_dropped = 0;
  int64_t buffer_peak_samples = 0, buffer_final_samples = 0;
  double age_sum_s = 0, sample_age_max_s = 0;  // over trained samples
  double data_wait_s = 0;                      // part of wait_s spent waiting for samples
  // Arrived while the device was off with stream.while_off = lose: never reached the buffer,
  // so not in samples_arrived.
  int64_t samples_lost_offline = 0;
};

struct DeviceRecord {
  std::string device, host;
  std::string device_class;  // the host's `class` property, else its name without a trailing number
  double host_speed_flops = 0;
  int64_t batch_size = 0;  // own samples per step
  int64_t steps = 0, samples_trained = 0;
  int64_t partition_samples = 0;  // training samples dataset.partition gave the device
  int64_t rounds_selected = 0;    // sync rounds whose model was meant for it (training.selection)
  int64_t rounds_aggregated = 0;  // sync rounds that applied its update
  double compute_s = 0, wait_s = 0, comm_s = 0;
  // Sync rounds: the part of wait_s spent out of the rounds (once a round went on without it, from the
  // end of the last round that sent it a model to the next one that does, or the end of the run): rounds
  // it was not selected for (or was busy or off for). A device never selected spends the whole run so.
  double unselected_s = 0;
  int64_t bytes_up = 0, bytes_down = 0;
  // What dense fp32 updates would have put on the uplink (headers and shared samples included).
  int64_t bytes_up_uncompressed = 0;
  std::optional<double> cnc_ratio;  // adaptive compression: fraction of steps sent compressed
  util::Boxed<StreamRecord> stream;  // on the heap: most devices of large fleets have none
  int64_t samples_injected_sent = 0, samples_injected_received = 0;
  int64_t stale_drops = 0;  // mode async: pushes dropped by training.max_staleness
  // Faults: time switched off (a fourth time bucket: compute + comm + wait + offline = run
  // length), pushes cut by a fault (not counted as sent), restarts, and the own samples taken
  // for steps that a fault cut short (so never trained).
  double offline_s = 0;
  int64_t failed_pushes = 0, restarts = 0, samples_lost_in_faults = 0;
  // Own samples taken for an update still in progress when the run ended. With them every
  // streamed sample is accounted for: samples_arrived == samples_trained + samples_dropped +
  // buffer_final_samples + samples_lost_in_faults + samples_held_at_end.
  int64_t samples_held_at_end = 0;
  // Sync rounds with training.round_timeout_s: pushes that arrived after their round closed.
  int64_t late_pushes = 0;
  // What the device holds while training (model-sized vectors: pulled parameters, gradient,
  // local copy, compressor memory), and its stream buffer at its peak.
  int64_t model_memory_bytes = 0, buffer_peak_bytes = 0;
  // What its host consumed over the run (unset: the host has no wattage_per_state).
  std::optional<double> energy_j;
};

// One row of links.csv: bytes carried by one platform link, and the time it carried at least one
// transfer (busy_s).
struct LinkRow {
  std::string link;
  double bandwidth_bps = 0, latency_s = 0;
  int64_t bytes = 0, messages = 0;
  double busy_s = 0;
  double full_load_s = 0;          // delivered bytes / bandwidth: the integral of its utilisation
  std::optional<double> energy_j;  // unset: the link has no wattage_range
  // SimGrid's sharing policy: "shared" (concurrent transfers share the bandwidth; SPLITDUPLEX links are
  // two such, <id>_UP and <id>_DOWN), "fatpipe" (each transfer gets the whole bandwidth, as on SimGrid's
  // __loopback__ for transfers within one host: utilisations above 1 are then expected), "wifi", "nonlinear".
  std::string sharing = "shared";
};

// Secure aggregation's phases as rounds.csv and summary.json name them (Bonawitz et al.'s rounds 0 to 4).
inline constexpr std::array<const char*, 5> kSecurePhases{"advertise", "share_keys", "masked_input", "consistency",
                                                          "unmasking"};

// Secure aggregation in one round: each phase's time (from the end of the one before; advertise from the
// round's start, the masked inputs including training) and the protocol bytes it moved, headers
// included: the devices' answers and what the aggregator sent on when it closed (adverts, shares,
// survivors, signatures, aborts); the phase that failed, if one did (empty otherwise).
struct SecureRoundRecord {
  std::array<double, 5> seconds{};
  std::array<int64_t, 5> bytes{};
  int64_t clipped_coordinates = 0;  // input values cut to [-range, range] (real runs; timing-only: 0)
  std::string failed_phase;
};

// One row of rounds.csv (sync rounds): when the round's models went out and when it closed, the
// device whose aggregated update arrived last, what was aggregated, missed or late, and the bytes
// that crossed the network meanwhile.
struct RoundRow {
  int64_t round = 0;     // the model version the round trained (0 = the initial model)
  bool applied = false;  // false: no update arrived (or fewer than min_updates), the model stayed as it was
  double start_s = 0, end_s = 0;
  std::string slowest_device;  // empty when nothing was aggregated
  int64_t selected = 0;        // devices picked for the round (training.selection)
  int64_t updates = 0, missing = 0, late = 0;
  int64_t bytes_up = 0, bytes_down = 0;
  std::optional<double> epsilon;  // privacy.dp: epsilon spent once the round applied (unset: no DP)
  std::optional<SecureRoundRecord> secure;  // privacy.secure_aggregation (unset: none)
  // training.deadline fedbalancer: the deadline predicted for the round, from its start (unset: none yet).
  bool predicted_deadline = false;
  std::optional<double> timeout_s;
};

// One row of buffers_fleet.csv: every device's stream buffer summed, at a regular interval.
struct FleetBufferPoint {
  double sim_time_s = 0;
  int64_t buffered_samples = 0, buffered_bytes = 0, arrived = 0, taken = 0, dropped = 0;
};

// One row of staleness.csv (mode async): an applied push and its staleness.
struct StalenessRow {
  double sim_time_s = 0;
  std::string device;
  int64_t staleness = 0;
};

// One row of buffers.csv. `taken` counts samples taken from the buffer for a step, including
// those a fault then lost or still held at the end: not the same as samples_trained.
struct BufferPoint {
  double sim_time_s = 0;
  std::string device;
  int64_t buffered_samples = 0, buffered_bytes = 0, arrived = 0, taken = 0, dropped = 0;
};

struct RunSummary {
  std::string status;         // completed | target_reached | diverged | interrupted | failed
  std::string status_reason;  // one sentence: which stop condition, or what failed
  int64_t rounds = 0;
  double sim_time_s = 0, wall_time_s = 0;
  double final_test_accuracy = 0, final_test_loss = 0, best_test_accuracy = 0;
  std::optional<double> time_to_target_s;
  int64_t bytes_up = 0, bytes_down = 0;
  int64_t bytes_up_uncompressed = 0;
  std::optional<double> cnc_ratio;
  int64_t model_params = 0;
  // Stream totals over the fleet (absent when no device streams).
  std::optional<int64_t> samples_arrived, samples_dropped, buffer_peak_samples;
  int64_t samples_trained = 0;
  uint64_t seed = 0;
  nlohmann::json extra = nlohmann::json::object();  // further keys (model FLOPs, network model...)
};

nlohmann::json summary_json(const RunSummary& summary);
std::string metrics_csv(const std::vector<EvalPoint>& points);
// devices.csv: a row per device, or per device selected for at least one round (a population's).
std::string devices_csv(const std::vector<DeviceRecord>& devices, bool took_part_only = false);
// What bounds a device while it takes part: the largest of its compute, communication, data-wait and
// other-wait time (unselected and offline time aside): "compute", "communication", "data" or "wait";
// "none" for a device that took no part (all four are 0: never selected, or off the whole run).
const char* device_bound(const DeviceRecord& d);
std::string staleness_csv(const std::vector<StalenessRow>& rows);
// staleness_mean, staleness_p50, staleness_p95, staleness_max (nearest-rank percentiles).
nlohmann::json staleness_summary(const std::vector<StalenessRow>& rows);
// mean_utilization = bytes / (bandwidth * sim_time); busy_fraction = busy_s / sim_time;
// utilization_when_busy = bytes / (bandwidth * busy_s): near 1, the link was saturated whenever busy
// (on a fatpipe link each transfer has the whole bandwidth, so both utilisations can exceed 1);
// energy_j empty for a link without wattage_range.
std::string links_csv(const std::vector<LinkRow>& rows, double sim_time_s);
// bytes / (bandwidth * over_s).
double utilization(const LinkRow& r, double over_s);
std::string rounds_csv(const std::vector<RoundRow>& rows);

class ResultsDir;
// Writes every result file into the run's temporary folder (ResultsDir::commit() then moves it
// into place).
struct RunOutputs {
  const nlohmann::json& resolved_scenario;
  const RunSummary& summary;
  const std::vector<EvalPoint>& points;
  const std::vector<DeviceRecord>& devices;
  const std::vector<LinkRow>& links;
  const std::vector<StalenessRow>& staleness;
  const std::vector<RoundRow>& rounds;  // empty unless sync rounds
  // A population (population.hosts "slots"): devices.csv holds the devices that took part, and
  // population.csv every device's sums by class and site (population_csv.hpp).
  bool population = false;
};
void write_run_outputs(ResultsDir& dir, const RunOutputs& outputs);

}  // namespace edgetrain::report
