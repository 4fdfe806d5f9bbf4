// The model zoo behind a LibTorch-free interface. Parameters travel through the rest of the
// program as one flat fp32 vector (the wire and the optimizer see exactly that); this class
// knows its layer layout, counts its FLOPs from layer shapes, and runs real LibTorch forward
// and backward passes on a parameter snapshot. A training step is a pure function of
// (parameters, batch): it reads no shared mutable state, so results are deterministic.
#pragma once

#include <cstdint>
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
  std::string name = "mlp";     // mlp | cnn
  std::vector<int64_t> hidden;  // empty = default (mlp: {128}, cnn: {50})
  std::vector<int64_t> conv_channels{10, 20};
  int64_t channels = 1, height = 28, width = 28, classes = 10;
};

struct StepResult {
  std::vector<float> gradient;  // flat, same layout as the parameters
  double loss = 0;              // mean cross-entropy over the batch
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
  // layer plus one per bias add; activations and pooling are not counted.
  double forward_flops_per_sample() const;
  // Training step per sample: forward + backward, the backward pass costing twice the forward
  // (gradients with respect to inputs and to weights).
  double step_flops_per_sample() const { return 3.0 * forward_flops_per_sample(); }

  // LibTorch's default initialisation, seeded.
  std::vector<float> init_params(uint64_t seed) const;
  StepResult gradient(std::span<const float> params, const Dataset& data, std::span<const int64_t> batch) const;
  // Accuracy and mean loss over the first `limit` samples of `data` (0 = all).
  EvalResult evaluate(std::span<const float> params, const Dataset& data, int64_t limit) const;
  // The same, asking `cancelled` between batches of samples: nothing once it says so (a long
  // evaluation must not hold up a Ctrl-C).
  std::optional<EvalResult> evaluate_unless(std::span<const float> params, const Dataset& data, int64_t limit,
                                            const std::function<bool()>& cancelled) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace edgetrain::learn
