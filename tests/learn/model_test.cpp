// Model zoo: parameter counts and FLOPs against hand-computed values, real gradients
// against finite differences, determinism, and that SGD on real gradients learns.
#include "learn/model.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

#include "learn/dataset.hpp"
#include "learn/sgd.hpp"

using namespace edgetrain::learn;

TEST_CASE("mlp 784-128-10: parameters and FLOPs counted from layer shapes") {
  Model m(ModelConfig{});
  CHECK(m.num_params() == 784 * 128 + 128 + 128 * 10 + 10);  // 101770
  // forward: 2 FLOPs per multiply-accumulate, 1 per bias add
  CHECK(m.forward_flops_per_sample() == doctest::Approx(2.0 * 784 * 128 + 128 + 2.0 * 128 * 10 + 10));
  CHECK(m.step_flops_per_sample() == doctest::Approx(3 * 203402.0));
  REQUIRE(m.layers().size() == 4);
  CHECK(m.layers()[0].name == "fc1.weight");
  CHECK(m.layers()[0].shape == std::vector<int64_t>{128, 784});
  CHECK(m.layers()[3].name == "fc2.bias");
  CHECK(m.layers()[3].offset == 784 * 128 + 128 + 128 * 10);
}

TEST_CASE("cnn (LeNet-like) on 1x28x28: parameters and FLOPs counted from layer shapes") {
  ModelConfig c;
  c.name = "cnn";
  Model m(c);
  // conv1 1->10 5x5: 260; conv2 10->20 5x5: 5020; fc1 320->50: 16050; fc2 50->10: 510
  CHECK(m.num_params() == 260 + 5020 + 16050 + 510);
  // conv1: (2*1*25+1)*10*24*24; conv2: (2*10*25+1)*20*8*8; fc1: 2*320*50+50; fc2: 2*50*10+10
  CHECK(m.forward_flops_per_sample() == doctest::Approx(293760.0 + 641280 + 32050 + 1010));
  CHECK(m.layers()[0].name == "conv1.weight");
  CHECK(m.layers()[4].name == "fc1.weight");
}

TEST_CASE("cnn rejects an input too small for its convolutions") {
  ModelConfig c;
  c.name = "cnn";
  c.height = c.width = 8;
  CHECK_THROWS_AS(Model{c}, ModelError);
}

namespace {
DatasetPair tiny_data() {
  SyntheticSpec s;
  s.height = 4;
  s.width = 4;
  s.classes = 3;
  s.train_samples = 300;
  s.test_samples = 300;
  return make_synthetic_dataset(s);
}
struct Step {
  std::vector<float> gradient;
  double loss = 0;
};
Step step_of(const Model& m, const std::vector<float>& params, const Dataset& data, std::span<const int64_t> batch) {
  Workspace w(m);
  Step s;
  s.gradient.resize(static_cast<size_t>(m.num_params()));
  s.loss = w.gradient(params, data, batch, s.gradient);
  return s;
}
}  // namespace

TEST_CASE("gradient matches finite differences of the loss") {
  const DatasetPair data = tiny_data();
  ModelConfig c;
  c.height = c.width = 4;
  c.classes = 3;
  c.hidden = {5};
  Model m(c);
  std::vector<float> params = m.init_params(7);
  std::vector<int64_t> batch(16);
  std::iota(batch.begin(), batch.end(), 0);
  const Step step = step_of(m, params, data.train, batch);
  auto loss_at = [&](std::vector<float> p) { return step_of(m, p, data.train, batch).loss; };
  for (size_t k : {0ul, 17ul, 80ul, params.size() - 1}) {
    const float eps = 1e-2f;
    std::vector<float> plus = params, minus = params;
    plus[k] += eps;
    minus[k] -= eps;
    const double numeric = (loss_at(plus) - loss_at(minus)) / (2 * eps);
    CHECK(step.gradient[k] == doctest::Approx(numeric).epsilon(0.02).scale(1e-3));
  }
}

TEST_CASE("a training step is a pure function of parameters and batch") {
  const DatasetPair data = tiny_data();
  ModelConfig c;
  c.height = c.width = 4;
  c.classes = 3;
  Model m(c);
  const std::vector<float> params = m.init_params(3);
  CHECK(params == m.init_params(3));
  CHECK(params != m.init_params(4));
  const std::vector<int64_t> batch{5, 9, 2, 200};
  Workspace w(m);
  auto step = [&](const std::vector<float>& p, std::span<const int64_t> b) {
    Step s;
    s.gradient.resize(p.size());
    s.loss = w.gradient(p, data.train, b, s.gradient);
    return s;
  };
  const Step a = step(params, batch);
  step(m.init_params(4), std::vector<int64_t>{1, 2});  // unrelated step in the same workspace in between
  const Step b = step(params, batch);
  CHECK(a.gradient == b.gradient);
  CHECK(a.loss == b.loss);
}

TEST_CASE("SGD on real gradients learns the synthetic task") {
  const DatasetPair data = tiny_data();
  ModelConfig c;
  c.height = c.width = 4;
  c.classes = 3;
  Model m(c);
  std::vector<float> params = m.init_params(1);
  Workspace w(m);
  const double before = w.evaluate(params, data.test, 0)->accuracy;
  Sgd sgd(0.9, 0.0);
  for (int step = 0; step < 60; ++step) {
    std::vector<int64_t> batch;
    for (int i = 0; i < 30; ++i) batch.push_back((step * 30 + i) % data.train.size());
    sgd.step(params, step_of(m, params, data.train, batch).gradient, 0.05);
  }
  const EvalResult after = *w.evaluate(params, data.test, 0);
  CHECK(after.samples == 300);
  CHECK(after.accuracy > 0.8);
  CHECK(after.accuracy > before + 0.3);
}

TEST_CASE("parameter vector of the wrong size is an error, not a crash") {
  Model m(ModelConfig{});
  const DatasetPair data = tiny_data();
  Workspace w(m);
  CHECK_THROWS_AS(w.evaluate(std::vector<float>(10), data.test, 0), ModelError);
}
