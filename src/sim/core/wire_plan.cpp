// See wire_plan.hpp. Sizes come from the same formulas a timing-only run charges (compress/size.hpp),
// the budget from the run's own accountant (privacy_run.hpp) fed the rounds as planned.
#include "sim/core/wire_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "backend/travelling_part.hpp"
#include "compress/size.hpp"
#include "privacy/epsilon_ledger.hpp"
#include "scenario/population.hpp"
#include "sim/core/privacy_run.hpp"
#include "sim/core/split_wire.hpp"
#include "sim/core/wire.hpp"
#include "util/memory.hpp"

namespace edgetrain::sim {

namespace {

// Rounds the budget line looks ahead when no stop condition bounds them.
constexpr int64_t kShownRounds = 100;
// At most this many rounds are accounted (stop.rounds may be up to 10^12; each round is composed in turn).
constexpr int64_t kMaxPlannedRounds = 100000;

std::string bytes_text(int64_t bytes) {
  return std::to_string(bytes) + " bytes (" + util::format_bytes(static_cast<double>(bytes)) + ")";
}

std::string four_digits(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

// One message's bytes with `spec`, or nullopt when its size depends on the data and none is declared.
std::optional<int64_t> message_of(const scenario::CompressorSpec& spec, const backend::ChargedModel& charged) {
  const std::optional<int64_t> payload = compress::planned_payload_bytes(spec, charged.layers);
  return payload ? std::optional<int64_t>(message_bytes(*payload)) : std::nullopt;
}

struct Directions {
  std::optional<int64_t> up, down;  // a message each way, as every round after the first sends them
  std::string text;
};

Directions directions(const scenario::Scenario& s, const backend::ChargedModel& charged, DeclaredBytes declared) {
  Directions d;
  const int64_t dense = message_bytes(charged.cost.dense_bytes());
  const auto& uplink = s.compression.uplink;
  d.text = "messages: uplink ";
  if (s.privacy.secure_aggregation) {
    d.text += "a masked input under secure aggregation, with its key phases (summary.json's secure_aggregation has their bytes)";
  } else if (s.compression.adaptive) {
    const std::optional<int64_t> compressed = message_of(uplink, charged);
    d.text += "dense " + bytes_text(dense) + " or top-k " +
              (compressed ? bytes_text(*compressed) : std::string("of the gradients' size")) +
              " a message, as ScaDLES's norm gap decides";
    if (uplink.timing_ratio) d.up = message_of(uplink, charged);
  } else {
    d.up = message_of(uplink, charged);
    d.text += d.up ? bytes_text(*d.up) + " a message" : "as many bytes as the gradients make it (no timing_ratio declared)";
    if (d.up && uplink.kind != "none")
      d.text += ", " + four_digits(100.0 * static_cast<double>(*d.up) / static_cast<double>(dense)) + "% of dense";
  }
  d.text += "; downlink ";
  if (const auto& downlink = s.compression.downlink) {
    d.down = message_of(*downlink, charged);
    d.text += "the dense model " + bytes_text(dense) + " to a device's first round, then model deltas of " +
              (d.down ? bytes_text(*d.down) : std::string("the data's size (no timing_ratio declared)"));
  } else {
    d.down = dense;
    d.text += "the dense model, " + bytes_text(dense) + " a message";
  }
  if (s.strategy_is("scaffold")) {
    // SCAFFOLD: a control variate beside each message, compressed like the update up, dense down.
    const int64_t header = message_bytes(0);
    if (d.up) d.up = 2 * *d.up - header;
    if (d.down) d.down = *d.down + (dense - header);
    d.text += "; SCAFFOLD adds a control variate to each: uplink " + (d.up ? bytes_text(*d.up) : std::string("twice")) +
              " a message, downlink + " + bytes_text(dense - header) + " (c, dense)";
  }
  if (s.strategy_is("qfedavg")) {
    if (d.up) *d.up += backend::kQfflBytes;
    d.text += "; qfedavg adds h_k (" + std::to_string(backend::kQfflBytes) + " bytes) to each upload" +
              (d.up ? ": " + bytes_text(*d.up) : std::string());
  }
  if (declared.model > 0 || declared.update > 0) {  // in the message, under its one header (sync_rounds, device_round)
    if (d.up) *d.up += declared.update;
    if (d.down) *d.down += declared.model;
    d.text += "; the Python strategy declares " + std::to_string(declared.model) + " bytes beside each model and " +
              std::to_string(declared.update) + " beside each update: uplink " +
              (d.up ? bytes_text(*d.up) : std::string("its size + " + std::to_string(declared.update))) + ", downlink " +
              (d.down ? bytes_text(*d.down) : std::string("its size + " + std::to_string(declared.model)));
  }
  d.text += "\n";
  return d;
}

// A round on the devices' links: each device picked pulls the model and pushes one update.
std::string round_text(const scenario::Scenario& s, const Directions& d) {
  if (s.training.applies_on_arrival())
    return "a push: each update applied on arrival costs its device one message each way\n";
  const size_t picked = scenario::most_picked(s.training.selection, s.devices.size());
  std::string out = "a round: " + std::to_string(picked) + " devices picked x (uplink + downlink)";
  if (d.up && d.down) out += " = " + bytes_text(static_cast<int64_t>(picked) * (*d.up + *d.down));
  if (s.topology.kind != "flat") out += " on the devices' links; the " + s.topology.kind + " topology adds its own";
  return out + "\n";
}

// The epsilon the run spends over the rounds it will account: stop.rounds, or those stop.epsilon
// allows, or kShownRounds when neither bounds them.
std::string privacy_text(const scenario::Scenario& s) {
  if (!s.privacy.dp) return "";
  const std::unique_ptr<privacy::EpsilonLedger> ledger = make_epsilon_ledger(s);
  const auto members = static_cast<int64_t>(s.devices.size());
  const auto picked = static_cast<int64_t>(scenario::most_picked(s.training.selection, static_cast<size_t>(members)));
  const auto planned = static_cast<int64_t>(scenario::planned_round_size(s.training.selection, static_cast<size_t>(members)));
  const bool local = s.privacy.dp->placement == "local";
  // Local DP: the device released most often, released once more; else a round as planned.
  const auto next_epsilon = [&] {
    return local ? ledger->epsilon_after_next(1, 1) : ledger->epsilon_after_next(picked, members);
  };
  const auto one_round = [&] {
    if (local) {
      ledger->update_received(0);  // the device released most often: at most once a round
    } else {
      ledger->round_applied(picked, members, planned);
    }
  };
  const std::optional<double> budget = s.stop.epsilon;
  const int64_t limit = std::min(s.stop.rounds.value_or(budget ? kMaxPlannedRounds : kShownRounds), kMaxPlannedRounds);
  int64_t rounds = 0;
  for (; rounds < limit; ++rounds) {
    if (budget && next_epsilon() > *budget) break;
    one_round();
  }
  if (budget && rounds == 0) {
    return "privacy: one round would spend epsilon " + four_digits(next_epsilon()) +
           " at delta " + four_digits(s.privacy.dp->delta) + ", above stop.epsilon " + four_digits(*budget) +
           ": the run stops before its first round\n";
  }
  std::string out = "privacy: epsilon " + four_digits(ledger->epsilon()) + " at delta " + four_digits(s.privacy.dp->delta) +
                    " after " + std::to_string(rounds) + " round" + (rounds == 1 ? "" : "s");
  if (budget && rounds < limit) {
    out += " (stop.epsilon " + four_digits(*budget) + " stops the run there, if nothing stops it before)";
  } else if (s.stop.rounds && *s.stop.rounds > limit) {
    out += " (the first " + std::to_string(limit) + " of stop.rounds " + std::to_string(*s.stop.rounds) +
           ", as far as validate accounts; each round spends more)";
  } else if (s.stop.rounds) {
    out += " (stop.rounds), if every round applies as planned";
  } else if (budget) {
    out += " (stop.epsilon " + four_digits(*budget) + " is not reached within them)";
  } else {
    out += " (shown at " + std::to_string(kShownRounds) + ": no stop.rounds, and each round spends more)";
  }
  if (local) out += "; local noise: the device released in every round";
  return out + "\n";
}

}  // namespace

std::string wire_plan_text(const scenario::Scenario& scenario, const backend::ChargedModel& charged,
                           DeclaredBytes declared) {
  if (charged.split) return split_wire_text(scenario, charged) + privacy_text(scenario);
  // Personalisation: only the shared part travels, both ways.
  backend::ChargedModel sent = charged;
  std::string shared;
  if (!charged.stays.empty()) {
    const backend::TravellingPart part(charged.layers, charged.stays);
    sent.layers = part.layout();
    sent.cost.params = charged.cost.travelling_params;
    shared = "personalisation: " + std::to_string(sent.cost.params) + " of the model's " +
             std::to_string(charged.cost.params) + " parameters travel; the rest stays on each device\n";
  }
  const Directions d = directions(scenario, sent, declared);
  return shared + d.text + round_text(scenario, d) + privacy_text(scenario);
}

}  // namespace edgetrain::sim
