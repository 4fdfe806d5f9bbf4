// Where split learning cuts a model (strategy/split_plan.hpp), against figures computed by hand from the
// built-in models' shapes and a catalogued ResNet's: each side's parameters and forward FLOPs, the
// activations at the cut, and the cuts refused.
#include "strategy/split_plan.hpp"

#include <doctest/doctest.h>

#include <string>

#include "learn/catalogue.hpp"
#include "learn/model_shape.hpp"
#include "scenario/error.hpp"

using namespace edgetrain;

namespace {

learn::ModelShape shape_of(const std::string& name, std::vector<int64_t> hidden) {
  learn::ModelConfig c;
  c.name = name;
  c.hidden = std::move(hidden);
  return learn::model_shape(c);  // 1 x 28 x 28, 10 classes; cnn: 5x5 convolutions of 10 and 20 channels
}

}  // namespace

TEST_CASE("split plan: an mlp cut after its first linear layer sends that layer's ReLU output") {
  const learn::ModelShape s = shape_of("mlp", {128, 64});
  const strategy::SplitPlan p = strategy::split_plan(1, s.layers, s.compute_layers, "mlp");
  CHECK(p.cut_module == "fc1");
  CHECK(p.device_params == 784 * 128 + 128);
  CHECK(p.server_params == 128 * 64 + 64 + 64 * 10 + 10);
  CHECK(p.activation_bytes == 128 * 4);
  CHECK(p.device_forward_flops == 2.0 * 784 * 128 + 128);
  CHECK(p.device_forward_flops + p.server_forward_flops == s.forward_flops_per_sample);
  CHECK(p.server_tensors == std::vector<bool>{false, false, true, true, true, true});
  CHECK(p.device_layers.size() == 2);  // fc1 and its ReLU
  const strategy::SplitPlan two = strategy::split_plan(2, s.layers, s.compute_layers, "mlp");
  CHECK(two.activation_bytes == 64 * 4);
  CHECK(two.server_params == 64 * 10 + 10);
}

TEST_CASE("split plan: a cnn cut after a convolution sends its pooled, activated maps") {
  const learn::ModelShape s = shape_of("cnn", {});
  const strategy::SplitPlan p = strategy::split_plan(1, s.layers, s.compute_layers, "cnn");
  CHECK(p.cut_module == "conv1");
  CHECK(p.device_params == 10 * 5 * 5 + 10);
  CHECK(p.activation_bytes == 10 * 12 * 12 * 4);  // 28 -> 24 (5x5) -> 12 (2x2 pool)
  CHECK(p.device_forward_flops == (2.0 * 5 * 5 + 1) * 10 * 24 * 24);
  const strategy::SplitPlan p2 = strategy::split_plan(2, s.layers, s.compute_layers, "cnn");
  CHECK(p2.activation_bytes == 20 * 4 * 4 * 4);  // 12 -> 8 -> 4
}

TEST_CASE("split plan: a catalogued resnet18 cut after its stem") {
  const learn::CatalogueModel* m = learn::find_model("resnet18");
  REQUIRE(m);
  const strategy::SplitPlan p = strategy::split_plan(2, m->layers, m->compute_layers, "resnet18");
  CHECK(p.cut_module == "bn1");
  CHECK(p.activation_bytes == 64 * 56 * 56 * 4);  // after the max-pool
  CHECK(p.device_params == 64 * 3 * 7 * 7 + 2 * 64);
  CHECK(p.device_params + p.server_params == m->params);
  CHECK(3.0 * (p.device_forward_flops + p.server_forward_flops) == doctest::Approx(m->step_flops_per_sample()));
}

TEST_CASE("split plan: cuts refused in one line") {
  const learn::ModelShape s = shape_of("mlp", {32});
  CHECK_THROWS_WITH_AS(strategy::split_plan(2, s.layers, s.compute_layers, "mlp"),
                       "strategy.cut_layers: 2 of mlp's 2 modules would leave the server none",
                       scenario::ScenarioError);
  // A module whose layer does not appear (as a TorchScript module used twice would show one too many).
  learn::LayerCosts missing = s.compute_layers;
  missing.erase(missing.begin());
  CHECK_THROWS_AS(strategy::split_plan(1, s.layers, missing, "mlp"), scenario::ScenarioError);
}
