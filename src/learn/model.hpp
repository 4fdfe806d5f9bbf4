// The model zoo behind a LibTorch-free interface. Parameters travel through the rest of the
// program as one flat fp32 vector (the wire and the optimizer see exactly that). A Model is an
// immutable description: its layer layout, its FLOPs counted from layer shapes, its seeded
// initialisation. The real LibTorch forward and backward passes run in a Workspace, which each
// worker thread owns: a training step is a pure function of (parameters, batch) that reads no
// shared mutable state, so steps of several devices can run at once and results stay
// deterministic.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "learn/dataset.hpp"
#include "learn/layer_info.hpp"
#include "util/input_error.hpp"

namespace edgetrain::learn {

class ModelError : public std::runtime_error, public util::InputError {
 public:
  using std::runtime_error::runtime_error;
};

struct ModelConfig {
  std::string name = "mlp";     // mlp | cnn | torchscript
  std::filesystem::path file;   // torchscript: the archive
  std::vector<int64_t> hidden;  // empty = default (mlp: {128}, cnn: {50})
  std::vector<int64_t> conv_channels{10, 20};
  int64_t conv_kernel = 5;    // square kernels
  bool conv_same = false;     // "same" padding (kernel / 2 each side, odd kernels) instead of none
  int64_t channels = 1, height = 28, width = 28, classes = 10;
};

struct EvalResult {
  double accuracy = 0;
  double loss = 0;
  int64_t samples = 0;
};

class Model {
 public:
  explicit Model(const ModelConfig& config);  // throws ModelError on an impossible shape
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelConfig& config() const;
  int64_t num_params() const;
  const std::vector<LayerInfo>& layers() const;
  // Forward FLOPs of one sample: 2 per multiply-accumulate of each linear and convolution
  // layer plus one per bias add; activations and pooling are not counted. A TorchScript
  // module's are measured from one forward pass (learn/torch/op_profile.hpp).
  double forward_flops_per_sample() const;
  // Training step per sample: forward + backward, the backward pass costing twice the forward
  // (gradients with respect to inputs and to weights).
  double step_flops_per_sample() const { return 3.0 * forward_flops_per_sample(); }

  // LibTorch's default initialisation, seeded; a TorchScript module's own weights, whatever the seed.
  std::vector<float> init_params(uint64_t seed) const;

 private:
  friend class Workspace;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A network's running statistics (BatchNorm's buffers) as re-estimated for some parameters: opaque here.
struct NormStatistics;

// One worker's network: the only mutable LibTorch state. Use it from one thread at a time.
// `statistics`, the training set, re-estimates a TorchScript module's buffers (BatchNorm's running
// statistics) before each evaluation (learn/torch/network.cpp says how); without it they keep the archive's.
class Workspace {
 public:
  explicit Workspace(const Model& model, const Dataset* statistics = nullptr);
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // One training step: writes the gradient of the mean cross-entropy over `batch` into
  // `gradient` (num_params values, the parameters' layout) and returns that loss. The network
  // reads `params` in place: no copy.
  double gradient(std::span<const float> params, const Dataset& data, std::span<const int64_t> batch,
                  std::span<float> gradient);
  // Accuracy and mean loss over the first `limit` samples of `data` (0 = all), under no-grad in
  // batches of 1,000, asking `cancelled` between batches: nothing once it says so (a long
  // evaluation must not hold up a Ctrl-C).
  // `fixed`: running statistics to evaluate with instead of re-estimating them for `params` (norm_statistics()).
  std::optional<EvalResult> evaluate(
      std::span<const float> params, const Dataset& data, int64_t limit,
      const std::function<bool()>& cancelled = [] { return false; }, const NormStatistics* fixed = nullptr);
  // The running statistics evaluate would re-estimate for `params`, kept to evaluate other parameters with
  // (personalised models beside the global one); null when the network has none.
  std::shared_ptr<const NormStatistics> norm_statistics(std::span<const float> params);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace edgetrain::learn
