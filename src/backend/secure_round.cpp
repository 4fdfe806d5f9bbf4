// See secure_round.hpp.
#include "backend/secure_round.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <stdexcept>

#include "privacy/secagg/client.hpp"
#include "privacy/secagg/cost.hpp"
#include "privacy/secagg/server.hpp"
#include "privacy/secagg/sizes.hpp"
#include "scenario/error.hpp"
#include "scenario/population.hpp"

namespace edgetrain::backend {

namespace sa = privacy::secagg;

double secure_input_range(const scenario::Scenario& scenario) {
  const std::optional<double>& set = scenario.privacy.secure_aggregation->range;
  const auto& dp = scenario.privacy.dp;
  if (!dp) return set.value_or(kRangeWithoutDp);
  const double noise = scenario::device_noise_stddev(scenario);
  const double needed = dp->clip + kNoiseSpread * noise;
  if (!set) return needed;
  if (noise > 0 && *set < needed) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "privacy.secure_aggregation.range: %.4g would cut the noise the devices add (standard deviation "
                  "%.4g each), so the sum would carry less than the accountant charges; at least %.4g (the clip %.4g "
                  "plus 7 standard deviations), or leave it unset",
                  *set, noise, needed, dp->clip);
    throw scenario::ScenarioError(text);
  }
  return *set;
}

SecureSettings secure_settings(const scenario::Scenario& scenario, size_t participants, int64_t vector_length) {
  const scenario::SecureAggregationSpec& spec = *scenario.privacy.secure_aggregation;
  const std::string at = "privacy.secure_aggregation";
  if (participants < 2) {
    throw scenario::ScenarioError(at + ": a round must select at least 2 devices (the sum of one update is that update)");
  }
  SecureSettings out;
  sa::Config& c = out.config;
  c.kind = spec.plus() ? sa::Kind::secagg_plus : sa::Kind::secagg;
  c.vector_length = static_cast<uint32_t>(vector_length);
  c.field_bits = static_cast<uint32_t>(spec.field_bits);
  const auto n = static_cast<int64_t>(participants);
  int64_t holders = n;  // who holds shares of a secret: everyone, or a neighbourhood
  if (spec.plus()) {
    if (n < 3) throw scenario::ScenarioError(at + ".kind: secagg+ needs at least 3 devices a round, not " + std::to_string(n));
    const sa::NeighbourChoice choice = sa::bell_neighbours(participants);
    const int64_t k = spec.neighbours.value_or(choice.neighbours);
    if (k >= n) {
      throw scenario::ScenarioError(at + ".neighbours: " + std::to_string(k) + " is not below the " + std::to_string(n) +
                                    " devices a round selects");
    }
    if (k % 2 == 1 && n % 2 == 1) {
      throw scenario::ScenarioError(at + ".neighbours: an odd degree " + std::to_string(k) + " needs an even number of "
                                    "devices a round, not " + std::to_string(n) + " (no such regular graph)");
    }
    c.neighbours = static_cast<uint32_t>(k);
    holders = k + 1;
  }
  c.threshold = static_cast<uint32_t>(spec.threshold.value_or(holders / 2 + 1));
  if (static_cast<int64_t>(c.threshold) > holders) {
    throw scenario::ScenarioError(at + ".threshold: " + std::to_string(c.threshold) + " is above the " +
                                  std::to_string(holders) +
                                  (spec.plus() ? " devices of a neighbourhood" : " devices a round selects") +
                                  ": no round could recover its sum");
  }
  out.fixed_point.bits = c.field_bits;
  out.fixed_point.range = secure_input_range(scenario);
  if (2 * static_cast<double>(n) > std::ldexp(1.0, static_cast<int>(c.field_bits)) - 1) {
    throw scenario::ScenarioError(at + ".field_bits: " + std::to_string(c.field_bits) + " bits leave no level for the sum "
                                  "of " + std::to_string(n) + " updates (needs 2n < 2^b)");
  }
  out.fixed_point.scale = sa::scale_for(participants, out.fixed_point.range, c.field_bits);
  sa::validate(c, participants);
  return out;
}

namespace {
std::vector<uint32_t> ids_of(const std::vector<size_t>& devices) {
  std::vector<uint32_t> ids(devices.begin(), devices.end());
  std::sort(ids.begin(), ids.end());
  return ids;
}
std::vector<size_t> devices_of(const std::vector<uint32_t>& ids) { return {ids.begin(), ids.end()}; }
bool contains(const std::vector<uint32_t>& sorted, uint32_t u) { return std::binary_search(sorted.begin(), sorted.end(), u); }
}  // namespace

SecureRound::SecureRound(const scenario::Scenario& scenario, std::vector<size_t> participants, int64_t vector_length,
                         uint64_t seed, bool real)
    : settings_(secure_settings(scenario, participants.size(), vector_length)),
      participants_(ids_of(participants)),
      graph_(sa::build_graph(settings_.config, participants_, seed)),
      real_(real) {
  if (real_) {
    server_ = std::make_unique<sa::SecAggServer>(settings_.config, participants_, seed);
    for (uint32_t u : participants_) clients_.emplace(u, std::make_unique<sa::SecAggClient>(settings_.config, u, seed));
  }
}

SecureRound::~SecureRound() = default;

std::vector<uint32_t> SecureRound::live_neighbours(uint32_t u, const std::vector<uint32_t>& set) const {
  return sa::live_neighbours(graph_, u, set);
}

// The formulas of privacy/secagg/sizes.hpp for what `u` sends in `phase` (the sets closed before it).
int64_t SecureRound::answer_bytes(uint32_t u, Phase phase) const {
  const sa::Config& c = settings_.config;
  switch (phase) {
    case Phase::advertise_keys: return static_cast<int64_t>(sa::sizes::advert());
    case Phase::share_keys: return static_cast<int64_t>(sa::sizes::sealed_shares(live_neighbours(u, sets_[0]).size()));
    case Phase::masked_input: return static_cast<int64_t>(sa::sizes::masked_input(c.vector_length, c.field_bits));
    case Phase::consistency: return static_cast<int64_t>(sa::sizes::signature());
    case Phase::unmasking: return static_cast<int64_t>(sa::sizes::unmask_shares(1 + live_neighbours(u, sets_[1]).size()));
  }
  return 0;
}

// ... and for what the aggregator sends `u` once `closed` closed.
int64_t SecureRound::next_bytes(uint32_t u, Phase closed) const {
  switch (closed) {
    case Phase::advertise_keys: return static_cast<int64_t>(sa::sizes::peer_adverts(live_neighbours(u, sets_[0]).size() + 1));
    case Phase::share_keys: return static_cast<int64_t>(sa::sizes::sealed_shares(live_neighbours(u, sets_[1]).size()));
    case Phase::masked_input: return static_cast<int64_t>(sa::sizes::survivors(sets_[2].size()));
    case Phase::consistency: return static_cast<int64_t>(sa::sizes::peer_signatures(live_neighbours(u, sets_[3]).size() + 1));
    case Phase::unmasking: return 0;
  }
  return 0;
}

ProtocolMessage SecureRound::answer(size_t device, Phase phase, const ProtocolMessage& from_server,
                                    std::span<const float> input, double& flops) {
  const auto u = static_cast<uint32_t>(device);
  sa::ClientCounts counts;
  counts.vector_length = settings_.config.vector_length;
  if (phase == Phase::share_keys) counts.peers = live_neighbours(u, sets_[0]).size();
  if (phase == Phase::masked_input || phase == Phase::unmasking) counts.partners = live_neighbours(u, sets_[1]).size();
  if (phase == Phase::unmasking) counts.signers = live_neighbours(u, sets_[3]).size();
  flops = sa::work_flops(sa::client_work(phase, counts), settings_.config.threshold);
  ProtocolMessage out;
  out.bytes = answer_bytes(u, phase);
  if (!real_) return out;
  sa::SecAggClient& client = *clients_.at(u);
  switch (phase) {
    case Phase::advertise_keys: out.payload = client.advertise(); break;
    case Phase::share_keys: out.payload = client.share_keys(from_server.payload); break;
    case Phase::masked_input: {
      // A diverged update (NaN) is sent as zeros: the loss it reports ends the run anyway.
      std::vector<float> finite(input.begin(), input.end());
      for (float& x : finite) x = std::isfinite(x) ? x : 0.0f;
      out.payload = client.masked_input(from_server.payload, sa::quantise(finite, settings_.fixed_point, &clipped_));
      break;
    }
    case Phase::consistency: out.payload = client.consistency(from_server.payload); break;
    case Phase::unmasking: out.payload = client.unmask(from_server.payload); break;
  }
  if (static_cast<int64_t>(out.payload.size()) != out.bytes)
    throw std::logic_error("secure aggregation: a " + std::string(sa::phase_name(phase)) + " message of " +
                           std::to_string(out.payload.size()) + " bytes, the size formula says " + std::to_string(out.bytes));
  return out;
}

void SecureRound::receive(Phase phase, size_t device, const ProtocolMessage& message) {
  answered_.push_back(static_cast<uint32_t>(device));
  if (real_) server_->receive(phase, static_cast<uint32_t>(device), message.payload);
}

std::string SecureRound::below_threshold(const std::vector<uint32_t>& live) const {
  if (live.empty()) return "no client answered";
  const std::optional<sa::Shortfall> short_of = sa::first_below_threshold(graph_, live, settings_.config.threshold);
  if (!short_of) return {};
  return "device " + std::to_string(short_of->client) + " has " + std::to_string(short_of->live) +
         " live devices in its neighbourhood, threshold " + std::to_string(settings_.config.threshold);
}

// Unmasking needs t shares of each U3 device's self-mask seed and of each mask key of a device that
// dropped after sharing its keys; the holders of v's shares are v and its neighbours in U2.
std::string SecureRound::unmask_failure() const {
  const std::vector<uint32_t>& u2 = sets_[1];
  const std::vector<uint32_t>& back = sets_[4];
  for (uint32_t v : u2) {
    size_t shares = contains(back, v) ? 1 : 0;
    for (uint32_t holder : live_neighbours(v, u2)) shares += contains(back, holder) ? 1 : 0;
    if (shares < settings_.config.threshold)
      return std::to_string(shares) + " shares of device " + std::to_string(v) + "'s secret came back, threshold " +
             std::to_string(settings_.config.threshold);
  }
  return {};
}

double SecureRound::unmask_flops() const {
  const std::vector<uint32_t>& u3 = sets_[2];
  std::vector<uint32_t> dropped;
  std::set_difference(sets_[1].begin(), sets_[1].end(), u3.begin(), u3.end(), std::back_inserter(dropped));
  sa::Work w;
  w.reconstructions = u3.size() + dropped.size();
  w.shares_combined = w.reconstructions * settings_.config.threshold;
  w.prg_elements = static_cast<uint64_t>(settings_.config.vector_length) * u3.size();
  w.key_generations = dropped.size();
  for (uint32_t v : dropped) {
    const uint64_t partners = live_neighbours(v, u3).size();
    w.key_agreements += partners;
    w.prg_elements += static_cast<uint64_t>(settings_.config.vector_length) * partners;
  }
  return sa::work_flops(w, settings_.config.threshold);
}

PhaseOutcome SecureRound::close(Phase phase) {
  const auto index = static_cast<size_t>(phase);
  std::vector<uint32_t> live = answered_;
  answered_.clear();
  std::sort(live.begin(), live.end());
  sets_[index] = live;
  PhaseOutcome out;
  out.answered = devices_of(live);
  out.failure = phase == Phase::unmasking ? unmask_failure() : below_threshold(live);
  if (phase == Phase::unmasking && out.failure.empty()) out.server_flops = unmask_flops();
  if (real_) {
    sa::PhaseResult result = server_->close(phase);
    if (result.failed != !out.failure.empty())
      throw std::logic_error("secure aggregation: the protocol and its sizes disagree on " +
                             std::string(sa::phase_name(phase)) + ": " + result.failure);
    for (auto& [u, bytes] : result.next) {
      ProtocolMessage m;
      m.bytes = next_bytes(u, phase);
      if (static_cast<int64_t>(bytes.size()) != m.bytes)
        throw std::logic_error("secure aggregation: a message after " + std::string(sa::phase_name(phase)) + " of " +
                               std::to_string(bytes.size()) + " bytes, the size formula says " + std::to_string(m.bytes));
      m.payload = std::move(bytes);
      out.next.emplace_back(u, std::move(m));
    }
    if (phase == Phase::unmasking && server_->sum()) sum_ = sa::decode_sum(*server_->sum(), settings_.fixed_point);
  } else if (out.failure.empty() && phase != Phase::unmasking) {
    for (uint32_t u : live) out.next.emplace_back(u, ProtocolMessage{next_bytes(u, phase), {}});
  }
  if (out.failed()) {
    out.failure = std::string("secure aggregation ") + sa::phase_name(phase) + ": " + out.failure;
    out.next.clear();
  }
  return out;
}

}  // namespace edgetrain::backend
