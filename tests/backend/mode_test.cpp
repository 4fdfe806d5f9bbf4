// The aggregation rule of each mode, by hand.
#include "backend/mode.hpp"

#include <doctest/doctest.h>

#include "scenario/load.hpp"

using edgetrain::backend::Mode;
using edgetrain::scenario::TrainingSpec;
using edgetrain::scenario::typed_defaults;

TEST_CASE("sync: plain mean at the configured learning rate, whatever the batches") {
  TrainingSpec t = typed_defaults().training;
  t.lr = 0.1;
  const Mode m(t, 2);
  CHECK(m.round_lr(64) == 0.1);
  CHECK(m.weight(8) == 1.0);
  CHECK(m.weight(32) == 1.0);
  CHECK_FALSE(m.applies_on_arrival());
  CHECK(m.steps_per_update() == 1);
}

TEST_CASE("scadles: weights b_i and lr * sum b / base, each switchable") {
  TrainingSpec t = typed_defaults().training;
  t.mode = "scadles";
  t.lr = 0.1;
  t.base_global_batch = 32;
  CHECK(Mode(t, 3).weight(8) == 8.0);
  CHECK(Mode(t, 3).round_lr(64) == doctest::Approx(0.2));
  CHECK(Mode(t, 3).batch_from_stream_rate());
  t.weighting = "uniform";
  CHECK(Mode(t, 3).weight(8) == 1.0);
  CHECK(Mode(t, 3).round_lr(64) == doctest::Approx(0.2));
  t.lr_scaling = "none";
  CHECK(Mode(t, 3).round_lr(64) == 0.1);
}

TEST_CASE("base_global_batch defaults to batch_size x devices") {
  TrainingSpec t = typed_defaults().training;
  t.mode = "scadles";
  t.batch_size = 16;
  CHECK(Mode(t, 4).base_global_batch() == 64);
}

TEST_CASE("local-sgd: FedAvg weights by samples at server_lr, on arrival when async") {
  TrainingSpec t = typed_defaults().training;
  t.mode = "local-sgd";
  t.server_lr = 0.7;
  t.local_steps = 3;
  const Mode m(t, 2);
  CHECK(m.weight(40) == 40.0);
  CHECK(m.round_lr(100) == 0.7);
  CHECK(m.steps_per_update() == 3);
  CHECK(m.local_sgd());
  CHECK_FALSE(m.applies_on_arrival());
  t.aggregation = "async";
  CHECK(Mode(t, 2).applies_on_arrival());
  CHECK(Mode(t, 2).server_lr() == 0.7);
}

TEST_CASE("async applies on arrival at training.lr") {
  TrainingSpec t = typed_defaults().training;
  t.mode = "async";
  t.lr = 0.03;
  const Mode m(t, 5);
  CHECK(m.applies_on_arrival());
  CHECK(m.server_lr() == 0.03);
  CHECK(m.steps_per_update() == 1);
}
