// Model and Workspace without LibTorch: each forwards to its implementation in the LibTorch module
// (torch_module.hpp says why it is a module, learn/torch/network.cpp what it does).
#include "learn/model.hpp"

#include "learn/torch_module.hpp"

namespace edgetrain::learn {

struct Model::Impl {
  std::unique_ptr<Network> network;
};

Model::Model(const ModelConfig& config) : impl_(std::make_unique<Impl>(Impl{torch_module().build(config)})) {}
Model::~Model() = default;

const ModelConfig& Model::config() const { return impl_->network->config; }
int64_t Model::num_params() const { return impl_->network->num_params; }
const std::vector<LayerInfo>& Model::layers() const { return impl_->network->layers; }
double Model::forward_flops_per_sample() const { return impl_->network->forward_flops; }
std::vector<float> Model::init_params(uint64_t seed) const { return impl_->network->init_params(seed); }

struct Workspace::Impl {
  std::unique_ptr<Trainer> trainer;
};

Workspace::Workspace(const Model& model, const Dataset* statistics)
    : impl_(std::make_unique<Impl>(Impl{model.impl_->network->trainer(statistics)})) {}
Workspace::~Workspace() = default;

double Workspace::gradient(std::span<const float> params, const Dataset& data, std::span<const int64_t> batch,
                           std::span<float> gradient) {
  return impl_->trainer->gradient(params, data, batch, gradient);
}

std::optional<EvalResult> Workspace::evaluate(std::span<const float> params, const Dataset& data, int64_t limit,
                                              const std::function<bool()>& cancelled, const NormStatistics* fixed) {
  return impl_->trainer->evaluate(params, data, limit, cancelled, fixed);
}

std::shared_ptr<const NormStatistics> Workspace::norm_statistics(std::span<const float> params) {
  return impl_->trainer->norm_statistics(params);
}

ModelShape script_shape(const ModelConfig& config) { return torch_module().script_shape(config); }

}  // namespace edgetrain::learn
