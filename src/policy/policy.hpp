// The policies a scenario may write in Python (docs/how-to/python-policies.md): the server's strategy, the
// selection of a round's devices and its deadline. This header is what the engine sees of them: plain
// interfaces, no Python, no SimGrid, no LibTorch. load_policies (python/load.cpp) makes them from the
// scenario; the back-end's store calls the strategy, the rounds the selection and the deadline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compress/compressor.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::policy {

// What the server knows of one update when it arrives (FitRes's fields beside the arrays).
struct UpdateFacts {
  size_t device = 0;
  int64_t round = 0;
  int64_t samples = 0;
  double weight = 0;       // the built-in mean's weight
  double loss = 0;         // the device's mean training loss
  int64_t staleness = 0;   // server versions since its model
  double arrival_s = 0;    // simulated time
  double round_time_s = 0; // since its model was sent
  int64_t bytes = 0;       // on the wire
};

// An update as the strategy receives it: its facts and its decoded delta (received - trained), shared so
// that the arrays handed to Python keep it alive.
struct ArrivedUpdate {
  UpdateFacts facts;
  std::shared_ptr<const std::vector<float>> delta;
};

// A metric a policy returned (aggregate_fit's and evaluate's), for policy_metrics.csv.
struct MetricRow {
  int64_t round = 0;
  std::string source;  // aggregate_fit | evaluate
  std::string key;
  double value = 0;
};

// Which devices a round picks, and what came back of those picked (a Python selection, or a strategy's
// configure_fit); sim's RoundSelection asks it (sim/aggregate/selection_policy.hpp wraps it).
class DevicePicker {
 public:
  virtual ~DevicePicker() = default;
  // Sets chosen[d] for at most `count` of the candidate devices `pool` in round `round` (from 0).
  virtual void pick(const std::vector<size_t>& pool, size_t count, int64_t round, std::vector<bool>& chosen) = 0;
  // An update came back `round_time_s` after its model was sent: in time and aggregated, or late.
  virtual void delivered(size_t /*device*/, double /*round_time_s*/) {}
  virtual void aggregated(size_t /*device*/, int64_t /*samples*/, double /*loss*/, double /*round_time_s*/) {}
};

class StrategyPolicy {
 public:
  virtual ~StrategyPolicy() = default;
  // initialize_parameters: replaces `model` (the engine's seeded initial model) when the strategy gives one.
  virtual void initial_model(std::vector<float>& model) = 0;
  // The server's model now (after each round it applied): configure_fit's and evaluate's parameters.
  virtual void model_is(std::shared_ptr<const std::vector<float>> model) = 0;
  // aggregate_fit: writes the new global model into `model` (`received`: the model the round sent); false
  // when the strategy returned None (the model stays). Then evaluate, on the new model.
  virtual bool aggregate(int64_t round, std::vector<ArrivedUpdate> updates,
                         const std::shared_ptr<const std::vector<float>>& received, std::vector<float>& model) = 0;
  // server_flops: what aggregating `updates` updates costs the server beyond the built-in mean and step.
  virtual double server_flops(int64_t round, int64_t updates, int64_t params) = 0;
  // message_bytes, asked once: bytes added to every model sent down and every update sent up.
  virtual int64_t extra_model_bytes() const = 0;
  virtual int64_t extra_update_bytes() const = 0;
  // configure_fit, when the class overrides it: it picks among the round's available devices (null: it does not).
  virtual std::shared_ptr<DevicePicker> round_configuration() = 0;
};

class DeadlinePolicy {
 public:
  virtual ~DeadlinePolicy() = default;
  // Seconds after the round's start at which it stops waiting for `picked` (device indices); none: it waits.
  virtual std::optional<double> deadline(int64_t round, const std::vector<size_t>& picked) = 0;
  virtual void observed(size_t device, double round_time_s) = 0;
};

// The run's policies, as the scenario names them (null: the built-in one).
struct Policies {
  std::shared_ptr<StrategyPolicy> strategy;
  std::shared_ptr<DevicePicker> selection;
  std::shared_ptr<DeadlinePolicy> deadline;
  std::shared_ptr<std::vector<MetricRow>> metrics;  // what the policies returned, in call order
  bool any() const { return strategy || selection || deadline; }
};

// Loads the Python classes the scenario names (an interpreter starts only then). `layers`: the trained
// model's layers (the arrays' shapes; none timing-only); `params`: the model's parameters as charged. Throws
// scenario::ScenarioError for a file or class that cannot be loaded, naming the key.
Policies load_policies(const scenario::Scenario& scenario, std::vector<compress::Layer> layers, int64_t params);

// policy_metrics.csv: round,source,key,value, a row per metric (metrics_csv.cpp).
std::string metrics_csv(const std::vector<MetricRow>& rows);

}  // namespace edgetrain::policy
