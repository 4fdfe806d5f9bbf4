// The epsilon a run has spent, round by round (privacy.dp, docs/explanation/privacy.md): which
// mechanism each round released, by where the noise is added, fed to the Renyi-DP accountant.
//   central:     the aggregator's noise z x clip on the sum; sampling rate selected / members;
//   distributed: the devices' shares, z x clip x sqrt(aggregated / K) on the sum: a round that
//                aggregates fewer updates than planned carries less noise, and is accounted so;
//   local:       every update received is a release of its device, noise z x clip, no amplification:
//                epsilon is that of the device released most often.
// Neighbouring fleets differ by one device added or removed. Its update moves the sum by at most the
// clip, unless adding it can push another device's update out of the round: wherever a round aggregates
// at most K updates (training.selection per_round or fraction, with or without over-selection; a
// fixed-size sample) one device added can take the place of one that would have counted, and the sum
// moves by up to 2 x clip. Local DP's single update is the same case. There the accountant sees noise
// z / 2 (replace-one neighbours). A Poisson draw (each device in with probability K/N, independently)
// caps nothing: sensitivity clip, amplified at rate K/N. Selection that is not a uniform draw (available
// devices) gets no amplification: rate 1. docs/explanation/privacy.md, "Neighbouring fleets".
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "privacy/rdp_accountant.hpp"

namespace edgetrain::privacy {

enum class Placement { central, distributed, local };

struct LedgerSettings {
  Placement placement = Placement::central;
  double noise_multiplier = 1;
  double delta = 1e-5;
  Sampling sampling = Sampling::fixed_size;  // poisson: the selection draws each device with probability K/N
  bool uniform_selection = true;  // every member or a uniform random sample each round
  bool capped_round = false;      // a round aggregates at most K updates: one device added can displace one
  int64_t planned_per_round = 1;  // K: the updates a round aggregates (distributed noise is shared by K)
  int64_t planned_picks = 1;      // the devices a round selects (K, or more with over-selection): a Poisson
                                  // draw's rate is planned_picks / members
};

class EpsilonLedger {
 public:
  EpsilonLedger(const LedgerSettings& settings, size_t devices);

  // A round applied the sum of `aggregated` updates, of `selected` devices picked among `members`.
  void round_applied(int64_t selected, int64_t members, int64_t aggregated);
  // Local DP: the aggregator received an update of `device`.
  void update_received(size_t device);

  double epsilon() const;
  // epsilon were one more round of `selected` of `members` applied as planned (K updates; local: the
  // device released most often released once more).
  double epsilon_after_next(int64_t selected, int64_t members);
  // Rounds composed (local DP: the most updates one device had received).
  int64_t releases() const { return accountant_.rounds(); }

 private:
  double sampling_rate(int64_t selected, int64_t members) const;
  double accounted_noise(double noise_on_sum) const;

  LedgerSettings settings_;
  RdpAccountant accountant_;
  std::vector<int64_t> received_;  // local DP: updates received per device
};

}  // namespace edgetrain::privacy
