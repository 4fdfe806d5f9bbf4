// The attacks (src/strategy/attack.hpp): who attacks (a seeded share, or a glob), what an attacker does
// to its update (sign-flip, scale, noise) and to its data (label-flip, backdoor), the backdoor's
// stamped test set, and the errors a data set can still cause at run time. Data sets built by hand.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "scenario/error.hpp"
#include "strategy/attack.hpp"

using namespace edgetrain;

namespace {

scenario::Scenario make_fleet(size_t n, uint64_t seed) {
  scenario::Scenario s;
  s.seed = seed;
  for (size_t i = 0; i < n; ++i) {
    s.devices.emplace_back();
    s.devices.back().name = (i % 2 ? "pi4-" : "jetson-") + std::to_string(i);
    s.devices.back().host = s.devices.back().name;
  }
  return s;
}

scenario::AttackSpec by_fraction(double fraction) {
  scenario::AttackSpec a;
  a.kind = "sign-flip";
  a.scale = 1;
  a.fraction = fraction;
  return a;
}

size_t count_true(const std::vector<bool>& v) { return static_cast<size_t>(std::count(v.begin(), v.end(), true)); }

scenario::AttackSpec backdoor(int64_t target, double poison_fraction) {
  scenario::AttackSpec a;
  a.kind = "backdoor";
  a.fraction = 0.5;
  a.target_class = target;
  a.poison_fraction = poison_fraction;
  return a;
}

// `n` samples of 2 x 4 x 5 fp32 features in [-1, 1), one of them 2.5 (the brightest), labels i % 4.
learn::Dataset features_set(int64_t n) {
  learn::Dataset d;
  d.channels = 2;
  d.height = 4;
  d.width = 5;
  d.classes = 4;
  d.raw_sample_bytes = 4 * d.sample_size();
  uint64_t x = 12345;
  for (int64_t i = 0; i < n * d.sample_size(); ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    d.features.push_back(static_cast<float>(static_cast<double>(x >> 40) / static_cast<double>(1ULL << 24) * 2 - 1));
  }
  d.features[7] = 2.5f;
  for (int64_t i = 0; i < n; ++i) d.labels.push_back(i % 4);
  return d;
}

// `n` samples of 1 x 5 x 4 uint8 codes; the brightest value is code 200's (codes above it map lower).
learn::Dataset codes_set(int64_t n) {
  learn::Dataset d;
  d.channels = 1;
  d.height = 5;
  d.width = 4;
  d.classes = 4;
  d.raw_sample_bytes = d.sample_size();
  for (int k = 0; k < 256; ++k) d.code_values[static_cast<size_t>(k)] = k <= 200 ? static_cast<float>(k) / 100 - 1 : -2.0f;
  for (int64_t i = 0; i < n * d.sample_size(); ++i) d.codes.push_back(static_cast<uint8_t>((i * 37 + i / 7) % 199));
  for (int64_t i = 0; i < n; ++i) d.labels.push_back((i * 3) % 4);
  return d;
}

// Whether value (c, y, x) of sample i lies in the 3 x 3 bottom-right patch.
bool in_patch(const learn::Dataset& d, int64_t y, int64_t x) { return y >= d.height - 3 && x >= d.width - 3; }

// Sample `i` of `d` as values (either storage).
std::vector<float> sample(const learn::Dataset& d, int64_t i) {
  std::vector<float> out(static_cast<size_t>(d.sample_size()));
  d.copy_sample(i, out.data());
  return out;
}

// Whether sample `i` of `got` is sample `j` of `from` stamped with `bright`: the patch of every channel
// at `bright`, everything else as it was.
bool stamped_copy(const learn::Dataset& got, int64_t i, const learn::Dataset& from, int64_t j, float bright) {
  const std::vector<float> a = sample(got, i), b = sample(from, j);
  for (int64_t c = 0; c < got.channels; ++c)
    for (int64_t y = 0; y < got.height; ++y)
      for (int64_t x = 0; x < got.width; ++x) {
        const auto k = static_cast<size_t>(c * got.height * got.width + y * got.width + x);
        if (a[k] != (in_patch(got, y, x) ? bright : b[k])) return false;
      }
  return true;
}

// Checks poisoned_train's backdoor on `train`: about `share` of the samples stamped and relabelled, the
// rest untouched.
void check_backdoor_train(const learn::Dataset& train, float bright) {
  const scenario::AttackSpec spec = backdoor(2, 0.3);
  const auto poisoned = strategy::poisoned_train(spec, train, 77);
  REQUIRE(poisoned);
  REQUIRE(poisoned->size() == train.size());
  int64_t stamped = 0;
  for (int64_t i = 0; i < train.size(); ++i) {
    CAPTURE(i);
    const auto label = poisoned->labels[static_cast<size_t>(i)];
    if (sample(*poisoned, i) == sample(train, i)) {
      CHECK(label == train.labels[static_cast<size_t>(i)]);
      continue;
    }
    ++stamped;
    CHECK(label == 2);
    CHECK(stamped_copy(*poisoned, i, train, i, bright));
  }
  // 2000 draws of probability 0.3: 600, standard deviation 20.5.
  CHECK(stamped > 520);
  CHECK(stamped < 680);
  // The same seed stamps the same samples, another seed others.
  CHECK(strategy::poisoned_train(spec, train, 77)->labels == poisoned->labels);
  const auto other = strategy::poisoned_train(spec, train, 78);
  CHECK(other->labels != poisoned->labels);
  // Poison fraction 1: every sample.
  const auto all = strategy::poisoned_train(backdoor(1, 1.0), train, 5);
  CHECK(std::all_of(all->labels.begin(), all->labels.end(), [](int64_t y) { return y == 1; }));
  CHECK(stamped_copy(*all, train.size() - 1, train, train.size() - 1, bright));
}

}  // namespace

TEST_CASE("attackers: a share draws round(fraction x n) devices, at least one, seeded") {
  const scenario::Scenario none = make_fleet(8, 11);
  CHECK(count_true(strategy::attackers(none)) == 0);  // no attack: every device honest
  CHECK(strategy::attackers(none).size() == 8);
  auto with = [](size_t n, uint64_t seed, double fraction) {
    scenario::Scenario s = make_fleet(n, seed);
    s.attack = by_fraction(fraction);
    return strategy::attackers(s);
  };
  CHECK(count_true(with(8, 11, 0.25)) == 2);
  CHECK(count_true(with(8, 11, 0.3)) == 2);   // 2.4
  CHECK(count_true(with(8, 11, 0.32)) == 3);  // 2.56
  CHECK(count_true(with(10, 11, 0.25)) == 3);  // 2.5 rounds away from 0
  CHECK(count_true(with(8, 11, 0.01)) == 1);  // 0.08 rounds to 0: at least one
  CHECK(count_true(with(8, 11, 1.0)) == 8);
  CHECK(count_true(with(1, 11, 0.5)) == 1);
  // Deterministic for a seed, another draw for other seeds.
  CHECK(with(8, 11, 0.25) == with(8, 11, 0.25));
  std::set<std::vector<bool>> draws;
  for (uint64_t seed = 1; seed <= 6; ++seed) draws.insert(with(8, seed, 0.25));
  CHECK(draws.size() >= 3);
  CHECK(with(8, 12, 0.5) != with(8, 11, 0.5));
}

TEST_CASE("attackers: a glob picks the devices whose names match, and one matching none is an error") {
  scenario::Scenario s = make_fleet(6, 3);
  s.attack = scenario::AttackSpec{};
  s.attack->kind = "label-flip";
  s.attack->devices = "pi4-*";
  CHECK(strategy::attackers(s) == std::vector<bool>{false, true, false, true, false, true});
  s.attack->devices = "jetson-[02]";
  CHECK(strategy::attackers(s) == std::vector<bool>{true, false, true, false, false, false});
  s.attack->devices = "pi4-?";
  CHECK(count_true(strategy::attackers(s)) == 3);
  s.attack->devices = "rpi*";
  CHECK_THROWS_AS(strategy::attackers(s), scenario::ScenarioError);
  CHECK_THROWS_WITH(strategy::attackers(s), doctest::Contains("matches no device"));
}

TEST_CASE("attackers: a host selector's devices, named, whatever the glob") {
  scenario::Scenario s = make_fleet(6, 3);
  s.attack = scenario::AttackSpec{};
  s.attack->kind = "label-flip";
  s.attack->named = {"pi4-1", "jetson-4"};
  CHECK(strategy::attackers(s) == std::vector<bool>{false, true, false, false, true, false});
}

TEST_CASE("attack_update: sign-flip sends -scale x the update, scale scale x it") {
  scenario::AttackSpec a;
  a.kind = "sign-flip";
  a.scale = 4;
  std::vector<float> u{1.0f, -2.0f, 0.25f};
  strategy::attack_update(a, 1, u);
  CHECK(u == std::vector<float>{-4.0f, 8.0f, -1.0f});
  a.scale = 1;
  strategy::attack_update(a, 1, u);
  CHECK(u == std::vector<float>{4.0f, -8.0f, 1.0f});
  a.kind = "scale";
  a.scale = 10;
  strategy::attack_update(a, 1, u);
  CHECK(u == std::vector<float>{40.0f, -80.0f, 10.0f});
  CHECK(strategy::attacks_updates(a));
}

TEST_CASE("attack_update: noise replaces the update by a seeded Gaussian vector") {
  scenario::AttackSpec a;
  a.kind = "noise";
  a.stddev = 3;
  std::vector<float> u(20000, 1.0f), v(20000, -5.0f), w(20000, 1.0f);
  strategy::attack_update(a, 9, u);
  strategy::attack_update(a, 9, v);  // another update, the same seed: the same vector
  strategy::attack_update(a, 10, w);
  CHECK(u == v);
  CHECK(u != w);
  double sum = 0, squares = 0;
  for (float x : u) {
    sum += x;
    squares += static_cast<double>(x) * x;
  }
  CHECK(std::abs(sum / 20000) < 4 * 3 / std::sqrt(20000.0));  // mean 0 (not 1: the update is gone)
  CHECK(std::sqrt(squares / 20000) == doctest::Approx(3).epsilon(0.02));
}

TEST_CASE("attack_update: data attacks leave the update alone, update attacks have no poisoned set") {
  for (const char* kind : {"label-flip", "backdoor"}) {
    scenario::AttackSpec a;
    a.kind = kind;
    CHECK_FALSE(strategy::attacks_updates(a));
    std::vector<float> u{1.0f, -2.0f};
    strategy::attack_update(a, 1, u);
    CHECK(u == std::vector<float>{1.0f, -2.0f});
  }
  const learn::Dataset train = features_set(10);
  for (const char* kind : {"sign-flip", "scale", "noise"}) {
    scenario::AttackSpec a;
    a.kind = kind;
    CHECK(strategy::attacks_updates(a));
    CHECK_FALSE(strategy::poisoned_train(a, train, 1));
    CHECK_FALSE(strategy::backdoor_test(a, train, train));
  }
}

TEST_CASE("poisoned_train: label-flip maps c to classes - 1 - c and keeps the values") {
  scenario::AttackSpec a;
  a.kind = "label-flip";
  const learn::Dataset train = features_set(8);
  const auto flipped = strategy::poisoned_train(a, train, 1);
  REQUIRE(flipped);
  CHECK(flipped->labels == std::vector<int64_t>{3, 2, 1, 0, 3, 2, 1, 0});
  CHECK(flipped->features == train.features);
  learn::Dataset ten = codes_set(5);
  ten.classes = 10;
  ten.labels = {0, 9, 4, 5, 7};
  const auto coded = strategy::poisoned_train(a, ten, 1);
  CHECK(coded->labels == std::vector<int64_t>{9, 0, 5, 4, 2});
  CHECK(coded->codes == ten.codes);
  CHECK_FALSE(strategy::backdoor_test(a, ten, ten));  // only a backdoor has a stamped test set
}

TEST_CASE("poisoned_train: backdoor on fp32 features stamps about poison_fraction of the samples") {
  check_backdoor_train(features_set(2000), 2.5f);
}

TEST_CASE("poisoned_train: backdoor on uint8 codes stamps the code of the brightest value") {
  const learn::Dataset train = codes_set(2000);
  check_backdoor_train(train, 1.0f);  // code 200's value: 200 / 100 - 1
  const auto poisoned = strategy::poisoned_train(backdoor(3, 1.0), train, 1);
  const int64_t last = train.sample_size() - 1;  // bottom-right pixel of sample 0
  CHECK(poisoned->codes[static_cast<size_t>(last)] == 200);
  CHECK(poisoned->features.empty());
}

TEST_CASE("backdoor_test: drops the target class's samples, stamps the rest and labels them the target") {
  for (const bool codes : {false, true}) {
    CAPTURE(codes);
    const learn::Dataset test = codes ? codes_set(40) : features_set(40);
    const float bright = codes ? 1.0f : 2.5f;
    const auto stamped = strategy::backdoor_test(backdoor(1, 0.5), test, test);
    REQUIRE(stamped);
    const auto others = std::count_if(test.labels.begin(), test.labels.end(), [](int64_t y) { return y != 1; });
    REQUIRE(stamped->size() == others);
    CHECK(std::all_of(stamped->labels.begin(), stamped->labels.end(), [](int64_t y) { return y == 1; }));
    CHECK(stamped->values().size() == static_cast<size_t>(others * test.sample_size()));
    int64_t j = 0;
    for (int64_t i = 0; i < test.size(); ++i) {
      if (test.labels[static_cast<size_t>(i)] == 1) continue;
      CAPTURE(i);
      CHECK(stamped_copy(*stamped, j, test, i, bright));
      ++j;
    }
  }
}

TEST_CASE("backdoor_test: the trigger is the training set's brightest value, the one the attackers learnt") {
  const learn::Dataset train = features_set(40);  // brightest 2.5
  learn::Dataset test = features_set(40);
  for (float& v : test.features) v *= 0.5f;  // a test set whose own brightest value is lower
  const auto stamped = strategy::backdoor_test(backdoor(1, 0.5), test, train);
  REQUIRE(stamped);
  const auto last = static_cast<size_t>(test.sample_size() - 1);  // the first stamped sample's bottom-right pixel
  CHECK(stamped->features[last] == 2.5f);
}

TEST_CASE("backdoor errors: a target class the data set lacks, images smaller than the trigger") {
  const learn::Dataset train = features_set(20);
  const std::string target = "attack.target_class: 4 is not a class of the data set (it has 4)";
  CHECK_THROWS_WITH_AS(strategy::poisoned_train(backdoor(4, 0.5), train, 1), target.c_str(), scenario::ScenarioError);
  CHECK_THROWS_WITH_AS(strategy::backdoor_test(backdoor(4, 0.5), train, train), target.c_str(), scenario::ScenarioError);
  CHECK_NOTHROW(strategy::poisoned_train(backdoor(3, 0.5), train, 1));
  // Label-flip needs no target.
  scenario::AttackSpec flip;
  flip.kind = "label-flip";
  flip.target_class = 99;
  CHECK_NOTHROW(strategy::poisoned_train(flip, train, 1));

  learn::Dataset small = features_set(20);
  small.height = 2;
  small.width = 10;  // the same sample size, two rows
  CHECK_THROWS_AS(strategy::poisoned_train(backdoor(0, 0.5), small, 1), scenario::ScenarioError);
  CHECK_THROWS_WITH(strategy::backdoor_test(backdoor(0, 0.5), small, small), doctest::Contains("3 x 3"));
  learn::Dataset narrow = features_set(20);
  narrow.height = 20;
  narrow.width = 2;
  CHECK_THROWS_AS(strategy::backdoor_test(backdoor(0, 0.5), narrow, narrow), scenario::ScenarioError);
  learn::Dataset tokens = features_set(20);
  tokens.tokens = true;
  CHECK_THROWS_AS(strategy::poisoned_train(backdoor(0, 0.5), tokens, 1), scenario::ScenarioError);
  // A 3 x 3 image is the trigger's size: every value stamped.
  learn::Dataset three = features_set(20);
  three.channels = 1;
  three.height = 3;
  three.width = 3;
  three.features.resize(20 * 9);
  const auto all = strategy::poisoned_train(backdoor(0, 1.0), three, 1);
  REQUIRE(all);
  const float top = *std::max_element(three.features.begin(), three.features.end());
  CHECK(std::all_of(all->features.begin(), all->features.end(), [top](float v) { return v == top; }));
}
