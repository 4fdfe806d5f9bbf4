// The server's aggregation rule per mode, by hand.
#include "sim/aggregation.hpp"

#include <doctest/doctest.h>

using namespace edgetrain;

TEST_CASE("sync: plain mean at the configured learning rate, whatever the batches") {
  scenario::TrainingSpec t;
  t.lr = 0.1;
  const auto agg = sim::aggregation_for(t, 64, {8, 24, 32});
  CHECK(agg.lr == 0.1);
  for (double w : agg.weights) CHECK(w == doctest::Approx(1.0 / 3));
}

TEST_CASE("scadles: weights b_i / sum b and lr * sum b / base, each switchable") {
  scenario::TrainingSpec t;
  t.mode = "scadles";
  t.lr = 0.1;
  auto agg = sim::aggregation_for(t, 32, {8, 24, 32});
  CHECK(agg.weights[0] == doctest::Approx(8.0 / 64));
  CHECK(agg.weights[2] == doctest::Approx(0.5));
  CHECK(agg.lr == doctest::Approx(0.2));
  t.weighting = "uniform";
  agg = sim::aggregation_for(t, 32, {8, 24, 32});
  CHECK(agg.weights[0] == doctest::Approx(1.0 / 3));
  CHECK(agg.lr == doctest::Approx(0.2));
  t.lr_scaling = "none";
  CHECK(sim::aggregation_for(t, 32, {8, 24, 32}).lr == 0.1);
}
