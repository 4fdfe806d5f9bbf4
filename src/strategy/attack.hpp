// Attackers among the devices (`attack`, docs/explanation/strategies.md): who attacks, what an
// attacker does to its update (sign-flip, scale, noise: attack_update) and to its data (label-flip,
// backdoor: poisoned_train), and the stamped test set whose accuracy is a backdoor's attack success
// rate. Plain C++: no LibTorch, no SimGrid.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "learn/dataset.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::strategy {

// Per scenario device: true for an attacker. A seeded draw of round(fraction x devices) (at least one),
// the devices named (a host selector's), or those whose names match the glob; a ScenarioError when the glob
// matches none.
std::vector<bool> attackers(const scenario::Scenario& scenario);

// The attackers' share of the devices (`who`: attackers()'s answer; 0 for no device).
double attacker_share(const std::vector<bool>& who);

// Whether the attack changes the updates (sign-flip, scale, noise) rather than the data.
bool attacks_updates(const scenario::AttackSpec& spec);

// An attacker's update, changed in place: update number `count` of device `device` (the seed of noise).
void attack_update(const scenario::AttackSpec& spec, uint64_t seed, std::span<float> update);

// The training set the attackers learn from (label-flip, backdoor): labels c -> classes - 1 - c, or a
// seeded share of samples stamped with the trigger and labelled target_class. Empty for update attacks.
std::optional<learn::Dataset> poisoned_train(const scenario::AttackSpec& spec, const learn::Dataset& train,
                                             uint64_t seed);

// Backdoor: the test samples of other classes than the target, stamped with the trigger the attackers
// trained on (the brightest value of `train`) and labelled target_class, so that the model's accuracy on it
// is the attack success rate; empty for other attacks.
std::optional<learn::Dataset> backdoor_test(const scenario::AttackSpec& spec, const learn::Dataset& test,
                                            const learn::Dataset& train);

}  // namespace edgetrain::strategy
