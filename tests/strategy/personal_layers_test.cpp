// Which tensors stay on each device (src/strategy/personal_layers.hpp): modules by name, fedper's and
// fedrep's head of the last modules, fedbn's normalisation tensors, and the splits refused.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "scenario/error.hpp"
#include "strategy/personal_layers.hpp"

using namespace edgetrain;

namespace {

std::vector<learn::LayerInfo> layers(const std::vector<std::pair<std::string, bool>>& names) {
  std::vector<learn::LayerInfo> out;
  for (const auto& [name, norm] : names) {
    learn::LayerInfo l;
    l.name = name;
    l.norm = norm;
    out.push_back(l);
  }
  return out;
}

scenario::Scenario with(const std::string& kind, int64_t head = 1) {
  scenario::Scenario s;
  s.strategy.emplace();
  s.strategy->kind = kind;
  s.strategy->head_layers = head;
  return s;
}

const auto kCnnBn = layers({{"features.0.weight", false}, {"features.0.bias", false}, {"features.1.weight", true},
                            {"features.1.bias", true}, {"classifier.weight", false}, {"classifier.bias", false}});

}  // namespace

TEST_CASE("personal layers: modules are the names up to their last dot, numbered as they first appear") {
  CHECK(strategy::modules_of(kCnnBn) == std::vector<size_t>{0, 0, 1, 1, 2, 2});
  CHECK(strategy::modules_of(layers({{"embed", false}, {"lstm.w", false}, {"lstm.b", false}})) ==
        std::vector<size_t>{0, 1, 1});
}

TEST_CASE("personal layers: fedper and fedrep keep the last modules, fedbn the normalisation tensors") {
  CHECK(strategy::kept_on_device(with("fedper"), kCnnBn) == std::vector<bool>{false, false, false, false, true, true});
  CHECK(strategy::kept_on_device(with("fedrep", 2), kCnnBn) == std::vector<bool>{false, false, true, true, true, true});
  CHECK(strategy::kept_on_device(with("fedbn"), kCnnBn) == std::vector<bool>{false, false, true, true, false, false});
  // The whole model travels for the others, and for ditto (its personal model is a second whole one).
  CHECK(strategy::kept_on_device(with("ditto"), kCnnBn).empty());
  CHECK(strategy::kept_on_device(with("fedavg"), kCnnBn).empty());
  CHECK(strategy::kept_on_device(scenario::Scenario{}, kCnnBn).empty());
}

TEST_CASE("personal layers: a head of every module, or fedbn without normalisation layers, is refused") {
  CHECK_THROWS_WITH_AS(strategy::kept_on_device(with("fedper", 3), kCnnBn),
                       "strategy.head_layers: 3 of the model's 3 modules would leave none to share", scenario::ScenarioError);
  const auto mlp = layers({{"fc1.weight", false}, {"fc1.bias", false}, {"fc2.weight", false}, {"fc2.bias", false}});
  CHECK_THROWS_AS(strategy::kept_on_device(with("fedbn"), mlp), scenario::ScenarioError);
}
