// See warnings.hpp. Each check names the key the user would change, says what goes wrong and why
// (with the paper or the measurement in docs/ that shows it), and what to do instead.
#include "scenario/warnings.hpp"

#include <cmath>
#include <map>

#include "scenario/keys/topology.hpp"
#include "scenario/population.hpp"
#include "util/format.hpp"
#include "util/printable.hpp"

namespace edgetrain::scenario {
namespace {

using util::format_number;

std::string mode_text(const TrainingSpec& t) {
  return t.mode == "async" ? "training.mode async" : "training.mode local-sgd with training.aggregation async";
}

// The kinds whose error feedback is on by default: biased compressors that need it.
bool needs_error_feedback(const std::string& kind) {
  return kind == "signsgd" || kind == "onebit" || kind == "powersgd";
}

// Stale gradients + heavy-ball momentum: asynchrony already acts as momentum (Mitliagkas et al.),
// so explicit momentum on top overshoots. Not when every stale push is dropped, nor with one device.
void async_momentum(const Scenario& s, std::vector<std::string>& out) {
  const TrainingSpec& t = s.training;
  if (t.momentum <= 0 || !t.applies_on_arrival() || s.devices.size() < 2) return;
  if (t.max_staleness && *t.max_staleness == 0) return;
  out.push_back("training.momentum: " + format_number(t.momentum) + " with " + mode_text(t) +
                ": heavy-ball momentum on stale updates amplifies their staleness and tends to diverge (asynchrony "
                "already acts as momentum: Mitliagkas et al. 2016, \"Asynchrony begets momentum\"; see "
                "docs/explanation/async.md), set training.momentum to 0");
}

// Error feedback re-sends what compression held back; with server momentum that residual enters
// the velocity late and is amplified there (the "momentum correction" of Deep Gradient Compression).
void feedback_momentum(const Scenario& s, std::vector<std::string>& out) {
  const CompressorSpec& up = s.compression.uplink;
  if (s.training.momentum <= 0 || up.kind == "none" || !up.error_feedback) return;
  const std::string by_default = needs_error_feedback(up.kind) ? " (the default for " + up.kind + ")" : "";
  out.push_back("compression.error_feedback: error feedback" + by_default + " with training.momentum " +
                format_number(s.training.momentum) +
                ": the residual each device re-injects reaches the server's momentum late and is amplified by it, "
                "which destabilises training (Lin et al. 2018, Deep Gradient Compression, apply momentum before "
                "compressing; Karimireddy et al. 2019, EF-SGD, analyse it without momentum; see "
                "docs/how-to/compression.md), set training.momentum to 0 or compression.error_feedback to false");
}

// stop.rounds counts model versions: in asynchronous modes one device's push each, or the average of
// training.buffer_size pushes (FedBuff), fewer than a synchronous round's when that is below the fleet's size.
void async_rounds(const Scenario& s, std::vector<std::string>& out) {
  const size_t n = s.devices.size();
  const int64_t k = s.training.buffer_size;
  if (!s.stop.rounds || !s.training.applies_on_arrival() || static_cast<int64_t>(n) <= k) return;
  const int64_t rounds = *s.stop.rounds;
  const double per_device = static_cast<double>(rounds * k) / static_cast<double>(n);
  const std::string each = k == 1 ? "counts applied pushes in " + mode_text(s.training) + ", each from one device"
                                  : "counts model versions in " + mode_text(s.training) + ", each the average of " +
                                        std::to_string(k) + " pushes (training.buffer_size)";
  out.push_back(
      "stop.rounds: " + std::to_string(rounds) + " " + each + " (about " +
      format_number(std::round(per_device * 10) / 10) + " per device with " + std::to_string(n) +
      " devices), not rounds of every device, set it to " +
      format_number(std::ceil(static_cast<double>(rounds) * static_cast<double>(n) / static_cast<double>(k))) +
      " for as many updates as " + std::to_string(rounds) + " synchronous rounds, or stop on stop.sim_time_s");
}

// A biased compressor without error feedback loses what it leaves out for good.
void missing_feedback(const Scenario& s, std::vector<std::string>& out) {
  const CompressorSpec& up = s.compression.uplink;
  if (!needs_error_feedback(up.kind) || up.error_feedback) return;
  out.push_back("compression.error_feedback: false with compression.kind " + up.kind +
                ": this biased compressor then loses what it leaves out for good and may not converge (Karimireddy et "
                "al. 2019, EF-SGD), set compression.error_feedback to true (its default for " +
                up.kind + ")");
}

// The downlink needs no memory: each delta is taken against the device's copy (docs/how-to/compression.md).
void downlink_feedback(const Scenario& s, std::vector<std::string>& out) {
  const auto& down = s.compression.downlink;
  if (!down || down->kind == "none" || !down->error_feedback || needs_error_feedback(down->kind)) return;
  out.push_back(
      "compression.downlink.error_feedback: has no effect: each downlink delta is taken against the device's copy, "
      "so it already carries what earlier deltas left out, remove it");
}

// In steady state a push is about n - 1 updates stale (one push of each other device since its pull).
// Not with hold (nothing is dropped) nor with buffers of several pushes (staleness counts versions).
void tight_staleness(const Scenario& s, std::vector<std::string>& out) {
  const TrainingSpec& t = s.training;
  const auto n = static_cast<int64_t>(s.devices.size());
  if (!t.applies_on_arrival() || !t.max_staleness || n < 2 || *t.max_staleness >= n - 1) return;
  if (t.staleness_policy == "hold" || t.buffer_size > 1) return;
  out.push_back("training.max_staleness: " + std::to_string(*t.max_staleness) + " with " + std::to_string(n) +
                " devices may drop most pushes: a push is on average about " + std::to_string(n - 1) +
                " updates stale (one from each other device since its pull), set it to at least " +
                std::to_string(n - 1) + " or to null");
}

// Devices on one host without streams compute and send alike: started together, they stay in lockstep.
void lockstep(const Scenario& s, std::vector<std::string>& out) {
  if (!s.training.applies_on_arrival() || s.training.start_jitter_s > 0) return;
  std::map<std::string, const DeviceSpec*> first_on_host;
  for (const DeviceSpec& d : s.devices) {
    if (d.stream) continue;
    const auto [at, added] = first_on_host.emplace(d.host, &d);
    if (added) continue;
    out.push_back("training.start_jitter_s: 0 with devices " + util::printable(at->second->name) + " and " +
                  util::printable(d.name) + " on one host (" + util::printable(d.host) +
                  "): devices alike started together push at the same instants for the whole run, set "
                  "training.start_jitter_s to about one step's time");
    return;
  }
}

// Distributed DP: each device adds only noise_multiplier x clip / sqrt(K), so that the K updates of a
// round sum to the whole noise. Whoever sees a single update (the aggregator, unless secure aggregation
// hides it: privacy.secure_aggregation) sees it with that share alone; the epsilon the run reports is that
// of the sum. Nothing to say when a round aggregates one update (the share is the whole).
void distributed_noise(const Scenario& s, std::vector<std::string>& out) {
  const auto& dp = s.privacy.dp;
  if (!dp || dp->placement != "distributed" || s.privacy.secure_aggregation) return;
  const size_t n = s.devices.size();
  const size_t k = planned_round_size(s.training.selection, n);
  if (k <= 1) return;
  const double share = device_noise_stddev(s);
  out.push_back(
      "privacy.dp.placement: distributed: each device adds only its share of the noise, standard deviation "
      "noise_multiplier x clip / sqrt(K) = " +
      format_number(share) + " with K = " + std::to_string(k) +
      " updates a round, so whoever sees a single update (the aggregator) sees it with that share alone; the "
      "epsilon reported holds against whoever sees only the sum: add privacy.secure_aggregation, set "
      "placement to central to trust the aggregator, or local for noise that protects each update on its own");
}

// delta is the chance the guarantee fails outright: at 1 / n, a mechanism that publishes one device's
// data in full (each device with probability delta) meets it (Dwork and Roth 2014, section 2.3).
void large_delta(const Scenario& s, std::vector<std::string>& out) {
  const auto& dp = s.privacy.dp;
  const auto n = static_cast<double>(s.devices.size());
  if (!dp || dp->delta * n < 1) return;
  out.push_back("privacy.dp.delta: " + format_number(dp->delta) + " is at least 1 / " + format_number(n) +
                " (the devices): an (epsilon, delta) guarantee with delta >= 1 / n allows publishing a device's "
                "update outright (each device with probability delta), whatever epsilon says (Dwork and Roth 2014, "
                "2.3), set it well below 1 / n, e.g. " +
                format_number(std::pow(10.0, std::floor(std::log10(0.1 / n)))));
}

// Secure aggregation sums a dense vector of m field elements of field_bits bits each, one per parameter:
// the devices' updates are compressed and decoded as ever (the compressor's error, and its bias without
// error feedback, stay), then quantised to the field, so no uplink compressor shrinks the masked input.
void secure_compression(const Scenario& s, std::vector<std::string>& out) {
  const auto& sa = s.privacy.secure_aggregation;
  const CompressorSpec& up = s.compression.uplink;
  if (!sa || up.kind == "none") return;
  out.push_back("compression.kind: " + up.kind +
                " with privacy.secure_aggregation saves no uplink bytes: each device sends its update as the "
                "masked input, a dense vector of one field element of field_bits (" +
                std::to_string(sa->field_bits) +
                ") bits per model parameter, whatever the compressor kept; its error (and bias) stay, its savings "
                "do not (see docs/explanation/secure-aggregation.md), set compression.kind to none, and lower "
                "privacy.secure_aggregation.field_bits to shrink the upload");
}

}  // namespace

std::vector<std::string> warnings(const Scenario& scenario) {
  std::vector<std::string> out;
  async_momentum(scenario, out);
  feedback_momentum(scenario, out);
  async_rounds(scenario, out);
  missing_feedback(scenario, out);
  downlink_feedback(scenario, out);
  tight_staleness(scenario, out);
  lockstep(scenario, out);
  distributed_noise(scenario, out);
  large_delta(scenario, out);
  secure_compression(scenario, out);
  keys::topology_warnings(scenario, out);
  return out;
}

}  // namespace edgetrain::scenario
