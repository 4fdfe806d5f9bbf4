// Populations on host slots (population.hosts "slots", docs/how-to/populations.md): how many devices a
// round may select, and the slots each site gets for them, written as the platform the run loads.
#pragma once

#include <cstddef>
#include <optional>

#include "scenario/scenario.hpp"

namespace edgetrain::scenario {

// A population's device on host slots (population.hosts "slots") costs about this many bytes: its
// fleet record, run record, ledger, partition entry and learner handle. Fitted on tools/bench's
// population benchmark (100,000 to 10,000,000 devices): with the slots' cost (backend's memory
// estimate), within 8% of the peak. Also what drawing the records may take before the estimate runs.
inline constexpr double kPopulationDeviceBytes = 0.72e3;
// A device with a host of its own in a timing-only run, the least it costs (its records, ledger, stream,
// its actor's and courier's stacks of 24 and 16 KiB, which SimGrid zeroes; real training adds to it).
// Fitted on tools/bench's scale fleets (1,000 to 100,000 devices): within 1% of the peak.
inline constexpr double kHostDeviceBytes = 52e3;
// The same device on the activity path (device_path.hpp: no actor, no courier; its share of the fleet
// drivers' stacks and activities), fitted on tools/bench's all-active fleets (10,000 to 1,000,000 devices:
// 13.0 kB a device of peak RSS between 131,072 and 262,144, of which 0.77 kB is the partition's indices):
// with the data and the program, within 3% of each peak.
inline constexpr double kActivityDeviceBytes = 12.6e3;

// The updates a round of `selection` aggregates among `members`: K (per_round, or the fraction of the
// members, at least 1); empty when every member (all) or every available one takes part. Throws
// ScenarioError when per_round exceeds the members.
std::optional<size_t> round_size(const SelectionSpec& selection, size_t members);
// The updates a round plans to aggregate: K, or every member when there is no K.
size_t planned_round_size(const SelectionSpec& selection, size_t members);
// privacy.dp (set): the standard deviation of the noise one device adds: 0 with central DP,
// noise_multiplier x clip / sqrt(K) with distributed DP (K: the planned round size, so that the sum of a
// round carries the whole noise), noise_multiplier x clip with local DP.
double device_noise_stddev(const Scenario& scenario);
// The most devices one round picks: ceil(K (1 + over_selection)) at most the members, or every member.
size_t most_picked(const SelectionSpec& selection, size_t members);
// privacy.dp with sampling poisson and selection random: each member drawn independently with probability
// most_picked / members (sim's RoundSelection), as the accountant assumes.
bool poisson_draw(const Scenario& scenario);

// Fills `population`'s slots per site (population.slots_per_site, else the most a round picks, at most
// the site's devices) and the scenario's platform: the slot platform's text and its check.
void place_population(Population& population, Scenario& s);

}  // namespace edgetrain::scenario
