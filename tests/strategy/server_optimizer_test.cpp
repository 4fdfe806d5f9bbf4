// The server optimisers (src/strategy/server_optimizer.*, fedopt.cpp): without a strategy (and with
// fedavg, fedprox) the training's SGD bit for bit; fedavgm's server momentum; FedAdam, FedYogi and
// FedAdagrad against the formulas of fedopt.cpp's header, step by step by hand; the sign convention (an
// update is a step to subtract); and the defaults a parsed scenario gives them.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../scenario/helpers.hpp"
#include "learn/sgd.hpp"
#include "strategy/server_optimizer.hpp"

using namespace edgetrain;

namespace {

const std::vector<float> kModel{1.0f, -2.0f, 0.5f};
// Two rounds' aggregated updates (steps to subtract); the third coordinate's first update is 0, and the
// first coordinate's second update is small enough that Yogi's v shrinks there.
const std::vector<float> kUpdate1{0.2f, -0.4f, 0.0f};
const std::vector<float> kUpdate2{0.01f, 0.3f, -0.5f};

scenario::StrategySpec spec(const std::string& kind, double eta, double beta1, double beta2, double tau) {
  scenario::StrategySpec s;
  s.kind = kind;
  s.server_lr = eta;
  s.beta1 = beta1;
  s.beta2 = beta2;
  s.tau = tau;
  return s;
}

// fedopt.cpp's header, written out again: Delta = -update, m and v from 0, no bias correction.
struct Reference {
  std::string kind;
  double eta, beta1, beta2, tau;
  std::vector<double> m = std::vector<double>(3, 0.0), v = std::vector<double>(3, 0.0);
  std::vector<double> w{1.0, -2.0, 0.5};
  void step(const std::vector<float>& update) {
    for (size_t k = 0; k < 3; ++k) {
      const double delta = -static_cast<double>(update[k]), d2 = delta * delta;
      m[k] = beta1 * m[k] + (1 - beta1) * delta;
      if (kind == "fedadagrad") {
        v[k] = v[k] + d2;
      } else if (kind == "fedyogi") {
        const double s = v[k] - d2 > 0 ? 1.0 : (v[k] - d2 < 0 ? -1.0 : 0.0);
        v[k] = v[k] - (1 - beta2) * d2 * s;
      } else {
        v[k] = beta2 * v[k] + (1 - beta2) * d2;
      }
      w[k] = w[k] + eta * m[k] / (std::sqrt(v[k]) + tau);
    }
  }
};

void check_close(const std::vector<float>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    CAPTURE(k);
    CHECK(got[k] == doctest::Approx(want[k]).epsilon(1e-6));
  }
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (std::bit_cast<uint32_t>(a[k]) != std::bit_cast<uint32_t>(b[k])) return false;
  return true;
}

// Three steps of `scenario`'s optimiser and of learn::Sgd(momentum, weight_decay) on the same inputs.
void check_is_sgd(const scenario::Scenario& s, double momentum, double weight_decay) {
  auto optimizer = strategy::make_server_optimizer(s);
  learn::Sgd sgd(momentum, weight_decay);
  std::vector<float> a{0.3f, -1.7f, 2.25f, 1e-3f}, b = a;
  const std::vector<std::vector<float>> updates{
      {0.11f, -0.2f, 0.5f, 3.0f}, {-0.7f, 0.01f, 0.25f, -1.0f}, {0.3f, 0.3f, -0.9f, 0.125f}};
  const double lrs[] = {0.5, 1.0, 0.07};
  for (size_t i = 0; i < updates.size(); ++i) {
    optimizer->step(a, updates[i], lrs[i]);
    sgd.step(b, updates[i], lrs[i]);
    CAPTURE(i);
    CHECK(same_bits(a, b));
  }
}

}  // namespace

TEST_CASE("server optimiser: no strategy is the training's SGD (momentum, weight decay) bit for bit") {
  scenario::Scenario s;
  s.training.momentum = 0.9;
  s.training.weight_decay = 0.01;
  check_is_sgd(s, 0.9, 0.01);
  s.training.momentum = 0;
  s.training.weight_decay = 0;
  check_is_sgd(s, 0, 0);
}

TEST_CASE("server optimiser: fedavg and fedprox step as the training's SGD bit for bit") {
  for (const char* kind : {"fedavg", "fedprox"}) {
    CAPTURE(kind);
    scenario::Scenario s;
    s.training.momentum = 0.5;
    s.training.weight_decay = 0.02;
    s.strategy = scenario::StrategySpec{};
    s.strategy->kind = kind;
    s.strategy->mu = 0.3;  // fedprox's mu acts on the devices, not on the server's step
    check_is_sgd(s, 0.5, 0.02);
  }
}

TEST_CASE("server optimiser: fedavgm is v = beta v + update, model -= lr v") {
  scenario::Scenario s;
  s.strategy = scenario::StrategySpec{};
  s.strategy->kind = "fedavgm";
  s.strategy->server_momentum = 0.5;
  auto optimizer = strategy::make_server_optimizer(s);
  std::vector<float> w = kModel;
  optimizer->step(w, kUpdate1, 2.0);
  // v = (0.2, -0.4, 0); w = (1 - 0.4, -2 + 0.8, 0.5)
  check_close(w, {0.6, -1.2, 0.5});
  optimizer->step(w, kUpdate2, 2.0);
  // v = (0.1 + 0.01, -0.2 + 0.3, -0.5) = (0.11, 0.1, -0.5); w -= 2 v
  check_close(w, {0.38, -1.4, 1.5});
  // Bit for bit the SGD rule with the server's momentum and no weight decay.
  scenario::Scenario t;
  t.strategy = s.strategy;
  t.training.weight_decay = 0.1;  // the training's weight decay is not the server's
  check_is_sgd(t, 0.5, 0.0);
}

TEST_CASE("server optimiser: fedadam, one step by hand, then a second against the header's formulas") {
  auto optimizer = strategy::make_fedopt(spec("fedadam", 0.1, 0.9, 0.99, 1e-9));
  std::vector<float> w = kModel;
  optimizer->step(w, kUpdate1, 123.0);  // the round's lr is not FedOpt's step size
  // m = 0.1 Delta, v = 0.01 Delta^2: m / sqrt(v) = sign(Delta) = -sign(update), so each coordinate moves
  // by eta against its update; a zero update leaves its coordinate (0 / (0 + tau)).
  check_close(w, {0.9, -1.9, 0.5});
  optimizer->step(w, kUpdate2, 123.0);
  // m = (-0.019, 0.006, 0.05), v = (0.000397, 0.002484, 0.0025), by hand:
  const double m0 = 0.9 * -0.02 + 0.1 * -0.01, v0 = 0.99 * 0.0004 + 0.01 * 0.0001;
  const double m1 = 0.9 * 0.04 + 0.1 * -0.3, v1 = 0.99 * 0.0016 + 0.01 * 0.09;
  const double m2 = 0.1 * 0.5, v2 = 0.01 * 0.25;
  check_close(w, {0.9 + 0.1 * m0 / (std::sqrt(v0) + 1e-9), -1.9 + 0.1 * m1 / (std::sqrt(v1) + 1e-9),
                  0.5 + 0.1 * m2 / (std::sqrt(v2) + 1e-9)});
  CHECK(w[0] == doctest::Approx(0.804642).epsilon(1e-5));
  CHECK(w[1] == doctest::Approx(-1.887961).epsilon(1e-5));
  CHECK(w[2] == doctest::Approx(0.6).epsilon(1e-6));
}

TEST_CASE("server optimiser: fedyogi's v grows and shrinks by the sign of v - Delta^2") {
  auto optimizer = strategy::make_fedopt(spec("fedyogi", 0.01, 0.9, 0.99, 1e-3));
  Reference ref{"fedyogi", 0.01, 0.9, 0.99, 1e-3};
  std::vector<float> w = kModel;
  optimizer->step(w, kUpdate1, 1.0);
  ref.step(kUpdate1);
  // From v = 0: v = 0 + 0.01 Delta^2 (v < Delta^2), and v stays 0 where Delta is 0.
  CHECK(ref.v[0] == doctest::Approx(0.0004));
  CHECK(ref.v[2] == 0.0);
  // w0 = 1 + 0.01 (-0.02) / (0.02 + 0.001)
  CHECK(w[0] == doctest::Approx(1 - 0.0002 / 0.021).epsilon(1e-6));
  check_close(w, ref.w);
  optimizer->step(w, kUpdate2, 1.0);
  ref.step(kUpdate2);
  // Coordinate 0: v = 0.0004 > Delta^2 = 0.0001, so v = 0.0004 - 0.01 x 0.0001 (Adam would give 0.000397).
  CHECK(ref.v[0] == doctest::Approx(0.000399));
  // Coordinate 1: v = 0.0016 < 0.09: v = 0.0016 + 0.0009.
  CHECK(ref.v[1] == doctest::Approx(0.0025));
  check_close(w, ref.w);
  CHECK(w[0] == doctest::Approx(1 - 0.0002 / 0.021 + 0.01 * -0.019 / (std::sqrt(0.000399) + 1e-3)).epsilon(1e-6));
}

TEST_CASE("server optimiser: fedadagrad sums the squares, beta1 0 keeps only this round's Delta") {
  auto optimizer = strategy::make_fedopt(spec("fedadagrad", 0.1, 0.0, 0.99, 1e-9));
  std::vector<float> w = kModel;
  optimizer->step(w, kUpdate1, 1.0);
  check_close(w, {0.9, -1.9, 0.5});  // Delta / |Delta| = -sign(update)
  optimizer->step(w, kUpdate2, 1.0);
  // v = Delta1^2 + Delta2^2, m = Delta2
  check_close(w, {0.9 - 0.1 * 0.01 / std::sqrt(0.04 + 0.0001), -1.9 - 0.1 * 0.3 / std::sqrt(0.16 + 0.09),
                  0.5 + 0.1 * 0.5 / std::sqrt(0.25)});
  Reference ref{"fedadagrad", 0.1, 0.0, 0.99, 1e-9};
  ref.step(kUpdate1);
  ref.step(kUpdate2);
  check_close(w, ref.w);
}

TEST_CASE("server optimiser: fedadam with beta1 0.5 and a small eta, three steps against the formulas") {
  auto optimizer = strategy::make_fedopt(spec("fedadam", 0.03, 0.5, 0.9, 1e-2));
  Reference ref{"fedadam", 0.03, 0.5, 0.9, 1e-2};
  std::vector<float> w = kModel;
  for (const auto& u : {kUpdate1, kUpdate2, kUpdate1}) {
    optimizer->step(w, u, 1.0);
    ref.step(u);
    check_close(w, ref.w);
  }
}

TEST_CASE("server optimiser: every kind moves the model down along a positive update") {
  for (const char* kind : {"fedavg", "fedavgm", "fedadam", "fedyogi", "fedadagrad", "fedprox"}) {
    CAPTURE(kind);
    scenario::Scenario s;
    s.strategy = spec(kind, 0.1, 0.9, 0.99, 1e-3);
    s.strategy->server_momentum = 0.9;
    auto optimizer = strategy::make_server_optimizer(s);
    std::vector<float> w{1.0f, 1.0f};
    optimizer->step(w, std::vector<float>{0.5f, -0.5f}, 0.1);
    CHECK(w[0] < 1.0f);
    CHECK(w[1] > 1.0f);
  }
}

TEST_CASE("server optimiser: a parsed scenario's strategy gets Flower's defaults") {
  using namespace edgetrain::scenario::testing;
  TempDir dir;
  auto doc = minimal_doc();
  doc["training"] = {{"mode", "local-sgd"}};
  auto parsed = [&](const std::string& kind) {
    doc["strategy"] = {{"kind", kind}};
    return parse_in(dir, doc);
  };
  const scenario::Scenario adam = parsed("fedadam");
  REQUIRE(adam.strategy);
  CHECK(adam.strategy->server_lr == 0.1);
  CHECK(adam.strategy->beta1 == 0.9);
  CHECK(adam.strategy->beta2 == 0.99);
  CHECK(adam.strategy->tau == 1e-9);
  const scenario::Scenario yogi = parsed("fedyogi");
  CHECK(yogi.strategy->server_lr == 0.01);
  CHECK(yogi.strategy->tau == 1e-3);
  const scenario::Scenario adagrad = parsed("fedadagrad");
  CHECK(adagrad.strategy->server_lr == 0.1);
  CHECK(adagrad.strategy->beta1 == 0.0);
  const scenario::Scenario avgm = parsed("fedavgm");
  CHECK(avgm.strategy->server_momentum == 0.9);
  const scenario::Scenario prox = parsed("fedprox");
  CHECK(prox.strategy->mu == 0.01);
  // Parsed fedadam's first step: eta 0.1 against each update's sign.
  auto optimizer = strategy::make_server_optimizer(adam);
  std::vector<float> w = kModel;
  optimizer->step(w, kUpdate1, 1.0);
  check_close(w, {0.9, -1.9, 0.5});
}

TEST_CASE("server optimiser: feddyn subtracts the drift of every round's deltas, n/M of each, beside the plain step") {
  // A fleet of 4; rounds of 2 and then 4 updates, at lr 0.5.
  auto dyn = strategy::make_feddyn(4);
  std::vector<float> model = kModel;
  std::vector<double> drift(3, 0.0), expected(kModel.begin(), kModel.end());
  const std::pair<const std::vector<float>*, int64_t> rounds[] = {{&kUpdate1, 2}, {&kUpdate2, 4}};
  for (const auto& [update, n] : rounds) {
    dyn->round_of(n);
    dyn->step(model, *update, 0.5);
    for (size_t k = 0; k < 3; ++k) {
      drift[k] += static_cast<double>(n) / 4.0 * (*update)[k];
      expected[k] = static_cast<double>(static_cast<float>(expected[k] - 0.5 * (*update)[k] - drift[k]));
    }
    for (size_t k = 0; k < 3; ++k) CHECK(model[k] == doctest::Approx(expected[k]).epsilon(1e-6));
  }
  // The drift goes on moving the model when a round's mean update is 0.
  const std::vector<float> before = model;
  dyn->round_of(1);
  dyn->step(model, std::vector<float>(3, 0.0f), 0.5);
  for (size_t k = 0; k < 3; ++k) CHECK(model[k] == doctest::Approx(before[k] - drift[k]).epsilon(1e-6));
}
