// The training mode, read once from the scenario into one object that devices, aggregators and
// back-ends ask (instead of comparing mode strings where they act):
//   sync:      one gradient per device per round; the plain mean at training.lr;
//   scadles:   the same rounds, each gradient weighted by its batch (training.weighting = batch:
//              b_i / sum b) and the learning rate scaled with the round's global batch
//              (training.lr_scaling = linear: lr * sum b / base_global_batch); each ingredient can
//              be switched off alone; batches sized from the stream rates;
//   async:     every push applied on arrival (devices pull the model first);
//   local-sgd: training.local_steps local SGD steps per push of the model delta, averaged
//              weighted by samples (FedAvg) at training.server_lr, in rounds or on arrival
//              (training.aggregation).
// Only the devices whose update arrived in time take part in a round (training.round_timeout_s).
// Pure arithmetic, unit-tested without a simulator.
#pragma once

#include <cstdint>
#include <string>

#include "scenario/scenario.hpp"

namespace edgetrain::backend {

class Mode {
 public:
  enum class Kind { Sync, Scadles, Async, LocalSgd };
  // `devices`: the fleet's size (base_global_batch defaults to batch_size x devices).
  Mode(const scenario::TrainingSpec& training, size_t devices);

  Kind kind() const { return kind_; }
  const std::string& name() const { return name_; }
  // The aggregator applies each update on arrival: devices pull the model before each update.
  bool applies_on_arrival() const { return on_arrival_; }
  // Devices push a model delta after local steps instead of one gradient.
  bool local_sgd() const { return kind_ == Kind::LocalSgd; }
  int64_t steps_per_update() const { return steps_; }
  // Each device's batch comes from its stream rate (ScaDLES).
  bool batch_from_stream_rate() const { return kind_ == Kind::Scadles; }

  // Round-based aggregation: an update computed on `samples` samples enters the round's sum with
  // this weight, and the sum is divided by the weights' total.
  double weight(int64_t samples) const { return by_samples_ ? static_cast<double>(samples) : 1.0; }
  // The round's step size, for `samples` samples in the updates aggregated.
  double round_lr(double samples) const { return linear_lr_ ? lr_ * samples / base_global_batch_ : lr_; }
  // The step size on one update applied on arrival.
  double server_lr() const { return lr_; }
  int64_t base_global_batch() const { return base_global_batch_; }

 private:
  Kind kind_;
  std::string name_;
  bool on_arrival_;
  int64_t steps_;
  bool by_samples_;
  bool linear_lr_;
  double lr_;  // training.server_lr for local-sgd's model deltas, training.lr for gradients
  double base_global_batch_;
};

}  // namespace edgetrain::backend
