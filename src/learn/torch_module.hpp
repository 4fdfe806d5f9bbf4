// The seam between learn's LibTorch-free facade (Model, Workspace and script_shape, in model.cpp) and
// their LibTorch implementation (learn/torch/), which is built as a shared module,
// libedgetrain_torch.so, and loaded the first time a network is built or a TorchScript file is
// measured. LibTorch as Debian packages it loads about 300 libraries and registers its operators
// before main, 0.6 s of every process: the commands and runs that build no network (timing-only
// runs, validate of a built-in model, fleet, sweep, plot, report) no longer pay it.
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "learn/dataset.hpp"
#include "learn/model.hpp"
#include "learn/model_shape.hpp"

namespace edgetrain::learn {

// Workspace's implementation: one worker's network.
class Trainer {
 public:
  virtual ~Trainer() = default;
  virtual double gradient(std::span<const float> params, const Dataset& data, std::span<const int64_t> batch,
                          std::span<float> gradient) = 0;
  virtual std::optional<EvalResult> evaluate(std::span<const float> params, const Dataset& data, int64_t limit,
                                             const std::function<bool()>& cancelled, const NormStatistics* fixed) = 0;
  virtual std::shared_ptr<const NormStatistics> norm_statistics(std::span<const float> params) = 0;
};

// Model's implementation: what the model is, as recorded when it was built.
class Network {
 public:
  virtual ~Network() = default;
  virtual std::vector<float> init_params(uint64_t seed) const = 0;
  virtual std::unique_ptr<Trainer> trainer(const Dataset* statistics) const = 0;

  ModelConfig config;
  std::vector<LayerInfo> layers;
  int64_t num_params = 0;
  double forward_flops = 0;
};

// What the module gives (edgetrain_torch_module, its one exported symbol).
struct TorchModule {
  std::unique_ptr<Network> (*build)(const ModelConfig& config);  // throws ModelError
  ModelShape (*script_shape)(const ModelConfig& config);          // throws ModelError
  // The program's stop flag (util::stop_flag), given once loaded: the module has a copy of its own.
  void (*watch_stop_flag)(const volatile std::sig_atomic_t* flag);
};

// The module's table, loaded on first use (from the executable's folder, or ../lib/edgetrain when
// installed); throws std::runtime_error naming the file when it cannot be loaded.
const TorchModule& torch_module();

// Loads the module on a thread of its own (when `wanted`) while the caller does other set-up, so
// that its ~0.6 s overlaps a run's platform and data loading. Joined when destroyed; a failure is
// reported by the next torch_module() call, not here.
class ModulePreload {
 public:
  explicit ModulePreload(bool wanted);
  ~ModulePreload();
  ModulePreload(const ModulePreload&) = delete;
  ModulePreload& operator=(const ModulePreload&) = delete;

 private:
  std::thread thread_;
};

}  // namespace edgetrain::learn

extern "C" const edgetrain::learn::TorchModule* edgetrain_torch_module();
