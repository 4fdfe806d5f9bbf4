// See privacy_run.hpp.
#include "sim/core/privacy_run.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "backend/secure_round.hpp"
#include "report/run_record.hpp"
#include "scenario/error.hpp"
#include "scenario/population.hpp"
#include "sim/core/run_state.hpp"

namespace edgetrain::sim {

namespace {
// A Poisson round's chance of drawing no one, at most this share of delta: the guarantee printed then
// holds at a delta larger by at most a millionth of it over a million rounds.
constexpr double kEmptyRoundShare = 1e-12;
}  // namespace

std::unique_ptr<privacy::EpsilonLedger> make_epsilon_ledger(const scenario::Scenario& scenario) {
  const auto& dp = scenario.privacy.dp;
  if (!dp) return nullptr;
  privacy::LedgerSettings settings;
  settings.placement = dp->placement == "central"       ? privacy::Placement::central
                       : dp->placement == "distributed" ? privacy::Placement::distributed
                                                        : privacy::Placement::local;
  settings.noise_multiplier = dp->noise_multiplier;
  settings.delta = dp->delta;
  const auto& selection = scenario.training.selection;
  settings.uniform_selection = selection.kind == "all" || selection.kind == "random";
  const size_t devices = scenario.devices.size();
  settings.planned_per_round = static_cast<int64_t>(scenario::planned_round_size(selection, devices));
  settings.planned_picks = static_cast<int64_t>(scenario::most_picked(selection, devices));
  // A round caps its updates at K wherever K is set, except under a Poisson draw without over-selection
  // (RoundSelection: it aggregates whatever it drew).
  const bool poisson_draw = scenario::poisson_draw(scenario);
  settings.sampling = poisson_draw ? privacy::Sampling::poisson : privacy::Sampling::fixed_size;
  settings.capped_round = scenario::round_size(selection, devices).has_value() &&
                          !(poisson_draw && settings.planned_picks == settings.planned_per_round);
  if (poisson_draw) {
    // A round that draws no one applies nothing, which the Poisson mechanism (noise on every round's
    // sum) does not allow for: refused unless its chance is negligible next to delta.
    const double q = static_cast<double>(settings.planned_picks) / static_cast<double>(devices);
    const double empty = std::pow(1 - q, static_cast<double>(devices));
    if (empty > kEmptyRoundShare * dp->delta) {
      char text[320];
      std::snprintf(text, sizeof text,
                    "privacy.dp.sampling: poisson draws no one in a round with probability %.3g (each of %zu devices "
                    "with probability %.3g), above %g x delta: such a round would release nothing the accountant "
                    "covers; select more devices a round, or use fixed_size",
                    empty, devices, q, kEmptyRoundShare);
      throw scenario::ScenarioError(text);
    }
  }
  return std::make_unique<privacy::EpsilonLedger>(settings, devices);
}

namespace {
std::string four_digits(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}
}  // namespace

bool epsilon_budget_spent(RunState& state, size_t members) {
  const auto& budget = state.scenario.stop.epsilon;
  if (!budget || !state.privacy) return false;
  const auto picked = static_cast<int64_t>(scenario::most_picked(state.scenario.training.selection, members));
  const double next = state.privacy->epsilon_after_next(picked, static_cast<int64_t>(members));
  if (next <= *budget) return false;
  const double spent = state.privacy->epsilon();
  // A distributed round that aggregated fewer updates than planned carried less noise than the look-ahead
  // assumed, and may have spent past the budget already (docs/explanation/privacy.md).
  state.stop("completed", spent > *budget ? "stop.epsilon reached: epsilon " + four_digits(spent) + " is above " +
                                                four_digits(*budget) + " (a round aggregated fewer updates than planned)"
                                          : "stop.epsilon reached: another round would take epsilon from " +
                                                four_digits(spent) + " to " + four_digits(next) + ", above " +
                                                four_digits(*budget));
  return true;
}

namespace {
size_t planned_round(const scenario::Scenario& scenario) {
  return scenario::planned_round_size(scenario.training.selection, scenario.devices.size());
}
}  // namespace

void check_privacy(const scenario::Scenario& scenario, int64_t params) {
  (void)make_epsilon_ledger(scenario);
  if (scenario.privacy.secure_aggregation) (void)backend::secure_settings(scenario, planned_round(scenario), params);
}

void check_secure_round_timeout(const scenario::Scenario& scenario, const simgrid::s4u::Host* server,
                                const std::vector<simgrid::s4u::Host*>& devices) {
  const auto& timeout = scenario.training.round_timeout_s;
  // Flat: the devices' aggregator is the server (a hierarchy's sites run their own rounds, nearer).
  if (!scenario.privacy.secure_aggregation || !timeout || !server || scenario.topology.kind != "flat") return;
  double fastest = INFINITY;
  for (const simgrid::s4u::Host* device : devices) {
    if (!device) continue;  // a population's, placed per round (secure aggregation refuses slots)
    std::vector<simgrid::s4u::Link*> links;
    double up = 0, down = 0;
    device->route_to(server, links, &up);
    links.clear();
    server->route_to(device, links, &down);
    fastest = std::min(fastest, 3 * (up + down));
  }
  if (fastest == INFINITY || *timeout >= fastest) return;
  throw scenario::ScenarioError(
      "training.round_timeout_s: " + four_digits(*timeout) + " s is shorter than any device needs to deliver its "
      "masked input under secure aggregation (at least " + four_digits(fastest) +
      " s: three round trips with the aggregator, the key phases and the model, before the step): no round would "
      "complete");
}

std::string describe_privacy(const scenario::Scenario& scenario, int64_t params) {
  std::string out;
  if (const auto& dp = scenario.privacy.dp) {
    out += "differential privacy: " + dp->placement + ", clip " + four_digits(dp->clip) + ", noise multiplier " +
           four_digits(dp->noise_multiplier) + ", delta " + four_digits(dp->delta) + ", " + dp->order + "\n";
  }
  if (const auto& sa = scenario.privacy.secure_aggregation) {
    const size_t n = planned_round(scenario);
    const backend::SecureSettings s = backend::secure_settings(scenario, n, params);
    out += "secure aggregation: " + sa->kind + " among " + std::to_string(n) + " devices a round, threshold " +
           std::to_string(s.config.threshold) +
           (sa->plus() ? ", " + std::to_string(s.config.neighbours) + " neighbours" : std::string()) + ", field 2^" +
           std::to_string(s.config.field_bits) + ", range " + four_digits(s.fixed_point.range) + " (" +
           four_digits(s.fixed_point.scale) + " levels per unit)\n";
  }
  return out;
}

std::optional<std::string> secure_clipping_warning(const RunState& state) {
  const int64_t clipped = state.secure_totals.clipped_coordinates;
  if (!state.scenario.privacy.secure_aggregation || clipped == 0) return std::nullopt;
  return "secure aggregation cut " + std::to_string(clipped) + " coordinate" + (clipped == 1 ? "" : "s") +
         " of the devices' inputs to +-" + four_digits(backend::secure_input_range(state.scenario)) +
         " (privacy.secure_aggregation.range): the aggregated sum is not the sum of the updates; raise the range";
}

nlohmann::json privacy_summary(const RunState& state) {
  const scenario::PrivacySpec& spec = state.scenario.privacy;
  if (!spec.dp && !spec.secure_aggregation) return nullptr;
  nlohmann::json out = nlohmann::json::object();
  if (const auto& dp = spec.dp; dp && state.privacy) {
    out["epsilon"] = state.privacy->epsilon();
    out["delta"] = dp->delta;
    out["dp"] = {{"placement", dp->placement},
                 {"clip", dp->clip},
                 {"noise_multiplier", dp->noise_multiplier},
                 {"order", dp->order},
                 {"sampling", dp->sampling},
                 {"releases_accounted", state.privacy->releases()}};
  }
  if (const auto& sa = spec.secure_aggregation) {
    // Bytes and time by phase over every round (a hierarchical run's are its sites'); the protocol's own
    // time leaves out the masked-input phase, which holds the training (what a round without secure
    // aggregation spends too).
    nlohmann::json bytes = nlohmann::json::object(), seconds = nlohmann::json::object();
    double protocol_s = 0;
    for (size_t p = 0; p < report::kSecurePhases.size(); ++p) {
      bytes[report::kSecurePhases[p]] = state.secure_totals.bytes[p];
      seconds[report::kSecurePhases[p]] = state.secure_totals.seconds[p];
      if (p != static_cast<size_t>(backend::Phase::masked_input)) protocol_s += state.secure_totals.seconds[p];
    }
    out["secure_aggregation"] = {{"kind", sa->kind},
                                 {"field_bits", sa->field_bits},
                                 {"bytes_by_phase", bytes},
                                 {"seconds_by_phase", seconds},
                                 {"protocol_s", protocol_s},
                                 {"rounds_failed", state.secure_rounds_failed},
                                 {"range", backend::secure_input_range(state.scenario)},
                                 {"clipped_coordinates", state.secure_totals.clipped_coordinates}};
  }
  return out;
}

}  // namespace edgetrain::sim
