// See attack.hpp.
#include "strategy/attack.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>

#include "privacy/gaussian_noise.hpp"
#include "scenario/error.hpp"
#include "util/seed.hpp"

namespace edgetrain::strategy {

namespace {

constexpr int64_t kTrigger = 3;  // the trigger: a kTrigger x kTrigger patch in the bottom-right corner

// The trigger's value: the brightest feature, or the code of the brightest value.
struct Brightest {
  float feature = 0;
  uint8_t code = 0;
};

Brightest brightest(const learn::Dataset& data) {
  if (data.tokens || data.height < kTrigger || data.width < kTrigger)
    throw scenario::ScenarioError("attack.kind backdoor: needs images of at least 3 x 3 pixels (the trigger is a "
                                "3 x 3 patch)");
  Brightest b;
  if (!data.features.empty()) b.feature = *std::max_element(data.features.begin(), data.features.end());
  const auto code = std::max_element(data.code_values.begin(), data.code_values.end());
  b.code = static_cast<uint8_t>(code - data.code_values.begin());
  return b;
}

// Stamps sample `i` of `data` with the trigger.
void stamp(learn::Dataset& data, int64_t i, Brightest value) {
  const int64_t plane = data.height * data.width;
  for (int64_t c = 0; c < data.channels; ++c) {
    for (int64_t y = data.height - kTrigger; y < data.height; ++y) {
      for (int64_t x = data.width - kTrigger; x < data.width; ++x) {
        const auto at = static_cast<size_t>(i * data.sample_size() + c * plane + y * data.width + x);
        if (data.codes.empty()) {
          data.features[at] = value.feature;
        } else {
          data.codes[at] = value.code;
        }
      }
    }
  }
}

void check_target(const scenario::AttackSpec& spec, const learn::Dataset& data) {
  if (spec.target_class >= data.classes)
    throw scenario::ScenarioError("attack.target_class: " + std::to_string(spec.target_class) + " is not a class of "
                                "the data set (it has " + std::to_string(data.classes) + ")");
}

}  // namespace

std::vector<bool> attackers(const scenario::Scenario& scenario) {
  const size_t n = scenario.devices.size();
  std::vector<bool> out(n, false);
  if (!scenario.attack) return out;
  const scenario::AttackSpec& spec = *scenario.attack;
  if (spec.fraction) {
    // The first round(fraction x n) of a seeded shuffle (Fisher-Yates on SplitMix64 words).
    const auto count = std::max<size_t>(1, static_cast<size_t>(std::llround(*spec.fraction * static_cast<double>(n))));
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    uint64_t state = util::derive_seed(scenario.seed, "attackers");
    for (size_t i = n; i > 1; --i) {
      state = util::mix64(state);
      std::swap(order[i - 1], order[state % i]);
    }
    for (size_t i = 0; i < std::min(count, n); ++i) out[order[i]] = true;
    return out;
  }
  const std::set<std::string> named(spec.named.begin(), spec.named.end());
  for (size_t i = 0; i < n; ++i) {
    const std::string& name = scenario.devices[i].name;
    out[i] = named.empty() ? fnmatch(spec.devices.c_str(), name.c_str(), 0) == 0 : named.count(name) > 0;
  }
  if (std::none_of(out.begin(), out.end(), [](bool b) { return b; }))
    throw scenario::ScenarioError("attack.devices: \"" + spec.devices + "\" matches no device");
  return out;
}

double attacker_share(const std::vector<bool>& who) {
  if (who.empty()) return 0;
  return static_cast<double>(std::count(who.begin(), who.end(), true)) / static_cast<double>(who.size());
}

bool attacks_updates(const scenario::AttackSpec& spec) {
  return spec.kind == "sign-flip" || spec.kind == "scale" || spec.kind == "noise";
}

void attack_update(const scenario::AttackSpec& spec, uint64_t seed, std::span<float> update) {
  if (spec.kind == "sign-flip" || spec.kind == "scale") {
    const auto factor = static_cast<float>(spec.kind == "sign-flip" ? -spec.scale : spec.scale);
    for (float& v : update) v *= factor;
  } else if (spec.kind == "noise") {
    std::fill(update.begin(), update.end(), 0.0f);
    privacy::add_gaussian_noise(update, spec.stddev, seed);
  }
}

std::optional<learn::Dataset> poisoned_train(const scenario::AttackSpec& spec, const learn::Dataset& train,
                                             uint64_t seed) {
  if (attacks_updates(spec)) return std::nullopt;
  learn::Dataset out = train;
  if (spec.kind == "label-flip") {
    for (int64_t& y : out.labels) y = out.classes - 1 - y;
    return out;
  }
  check_target(spec, out);
  const Brightest value = brightest(out);
  // Backdoor: each sample stamped with probability poison_fraction, a seeded draw per sample.
  for (int64_t i = 0; i < out.size(); ++i) {
    const double u = static_cast<double>(util::mix64(seed + static_cast<uint64_t>(i)) >> 11) * 0x1.0p-53;
    if (u >= spec.poison_fraction) continue;
    stamp(out, i, value);
    out.labels[static_cast<size_t>(i)] = spec.target_class;
  }
  return out;
}

std::optional<learn::Dataset> backdoor_test(const scenario::AttackSpec& spec, const learn::Dataset& test,
                                            const learn::Dataset& train) {
  if (spec.kind != "backdoor") return std::nullopt;
  check_target(spec, test);
  brightest(test);  // the test set's shape checked as the training set's
  const Brightest value = brightest(train);
  std::vector<int64_t> others;
  for (int64_t i = 0; i < test.size(); ++i)
    if (test.labels[static_cast<size_t>(i)] != spec.target_class) others.push_back(i);
  learn::Dataset out = learn::subset(test, others);
  for (int64_t i = 0; i < out.size(); ++i) {
    out.labels[static_cast<size_t>(i)] = spec.target_class;
    stamp(out, i, value);
  }
  return out;
}

}  // namespace edgetrain::strategy
