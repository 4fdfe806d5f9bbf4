// See epsilon_ledger.hpp.
#include "privacy/epsilon_ledger.hpp"

#include <algorithm>
#include <cmath>

namespace edgetrain::privacy {

EpsilonLedger::EpsilonLedger(const LedgerSettings& settings, size_t devices)
    : settings_(settings), accountant_(settings.sampling) {
  if (settings.placement == Placement::local) received_.assign(devices, 0);
}

double EpsilonLedger::sampling_rate(int64_t selected, int64_t members) const {
  if (!settings_.uniform_selection || members <= 0) return 1.0;
  // A Poisson draw's rate is its probability, whatever number it drew this round.
  const int64_t drawn = settings_.sampling == Sampling::poisson ? settings_.planned_picks : selected;
  return std::min(1.0, static_cast<double>(drawn) / static_cast<double>(members));
}

// The noise multiplier the accountant sees: relative to the sensitivity, 2 x clip where one device added
// can displace another's update (a round capped at K updates; local DP's single update).
double EpsilonLedger::accounted_noise(double noise_on_sum) const {
  const bool replace_one = settings_.placement == Placement::local || settings_.capped_round;
  return replace_one ? noise_on_sum / 2 : noise_on_sum;
}

void EpsilonLedger::round_applied(int64_t selected, int64_t members, int64_t aggregated) {
  if (settings_.placement == Placement::local || aggregated <= 0) return;
  double noise = settings_.noise_multiplier;
  if (settings_.placement == Placement::distributed) {
    noise *= std::sqrt(static_cast<double>(aggregated) / static_cast<double>(settings_.planned_per_round));
  }
  const double rate = sampling_rate(selected, members);
  accountant_.compose(accounted_noise(noise), rate);
}

void EpsilonLedger::update_received(size_t device) {
  if (settings_.placement != Placement::local) return;
  if (++received_.at(device) > accountant_.rounds()) accountant_.compose(accounted_noise(settings_.noise_multiplier), 1.0);
}

double EpsilonLedger::epsilon() const { return accountant_.epsilon(settings_.delta).epsilon; }

double EpsilonLedger::epsilon_after_next(int64_t selected, int64_t members) {
  const double rate = settings_.placement == Placement::local ? 1.0 : sampling_rate(selected, members);
  return accountant_.epsilon_after(accounted_noise(settings_.noise_multiplier), rate, 1, settings_.delta)
      .epsilon;
}

}  // namespace edgetrain::privacy
