// A Python strategy (a subclass of edgetrain.strategy.Strategy: Flower's method names) as the engine's
// StrategyPolicy. Every call runs on the interpreter's thread (host.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "policy/policy.hpp"
#include "policy/python/classes.hpp"

namespace edgetrain::policy {

// The server's model as the strategy last saw it, and its layers (the arrays' shapes).
struct StrategyModel {
  std::vector<compress::Layer> layers;
  std::shared_ptr<const std::vector<float>> model;  // null: timing-only, or before the first store
  // edgetrain.strategy.Parameters viewing the model; None without one.
  py::object parameters() const;
};

class PythonStrategy final : public StrategyPolicy {
 public:
  // `names`: the devices' names (their cid); `params`: the model's parameters (message_bytes' argument).
  PythonStrategy(LoadedClass cls, std::vector<compress::Layer> layers, std::vector<std::string> names,
                 std::shared_ptr<std::vector<MetricRow>> metrics, int64_t params);
  void initial_model(std::vector<float>& model) override;
  void model_is(std::shared_ptr<const std::vector<float>> model) override { model_.model = std::move(model); }
  bool aggregate(int64_t round, std::vector<ArrivedUpdate> updates, const std::shared_ptr<const std::vector<float>>& received,
                 std::vector<float>& model) override;
  double server_flops(int64_t round, int64_t updates, int64_t params) override;
  int64_t extra_model_bytes() const override { return model_bytes_; }
  int64_t extra_update_bytes() const override { return update_bytes_; }
  std::shared_ptr<DevicePicker> round_configuration() override { return configure_; }

 private:
  LoadedClass cls_;
  std::vector<std::string> names_;
  std::shared_ptr<std::vector<MetricRow>> metrics_;
  int64_t params_;
  StrategyModel model_;
  int64_t model_bytes_ = 0, update_bytes_ = 0;
  bool evaluates_ = false;                         // the class overrides evaluate
  bool declares_flops_ = false;                    // the class overrides server_flops
  std::shared_ptr<DevicePicker> configure_;  // the class overrides configure_fit
};

}  // namespace edgetrain::policy
