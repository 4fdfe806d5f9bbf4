// LibTorch implementation of the model zoo, behind learn/torch_module.hpp: the shared module
// libedgetrain_torch.so. A Model's network is built once to record the layout; each Workspace's
// trainer builds its own network (a torch::nn::Sequential, or a fresh load of the user's
// TorchScript module) and points its parameters at the given flat vector (set_data on a view: no
// copy) before each forward pass.
#include "learn/torch_module.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <mutex>
#include <new>
#include <string_view>

#include "learn/model_shape.hpp"
#include "learn/torch/torch_pch.hpp"
#include "learn/torch/torchscript.hpp"

namespace edgetrain::learn {

// The buffers as estimated (Workspace::statistics).
struct NormStatistics {
  std::vector<torch::Tensor> buffers;
};

namespace {

// LibTorch reports a failed allocation as a c10::Error with a backtrace; callers see it as
// std::bad_alloc, the one kind of out-of-memory the rest of the program handles.
template <class F>
auto allocating(F&& f) {
  try {
    return f();
  } catch (const c10::Error& e) {
    if (std::string_view(e.what_without_backtrace()).find("can't allocate memory") != std::string_view::npos)
      throw std::bad_alloc();
    throw;
  }
}

// One BLAS thread: the worker pool is the parallelism. OpenBLAS's pthread build (thread-safe,
// unlike its serial build, whose shared buffers corrupt concurrent calls from several workers)
// would otherwise split every product over all cores, fight the pool, and change the low digits.
// Looked up at run time: another BLAS may not have the call.
void single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] {
    using SetThreads = void (*)(int);
    if (auto* set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(1);
  });
}

// Building a network draws its default initialisation from LibTorch's global generator: one
// build at a time, so that init_params' seeded draws never interleave with a worker's build.
std::mutex build_mutex;

// A network: a built-in one, or the user's TorchScript module.
struct Net {
  torch::nn::Sequential sequential{nullptr};
  std::optional<torch::jit::Module> script;
  std::shared_ptr<const ScriptArchive> archive;  // the script's, for messages
  int64_t classes = 0;

  torch::Tensor forward(const torch::Tensor& x) {
    return script ? script_forward(*script, *archive, x, classes) : sequential->forward(x);
  }
  void train(bool on) {
    if (script) {
      script->train(on);
    } else {
      sequential->train(on);
    }
  }
  std::vector<torch::Tensor> parameters() const {
    if (!script) return sequential->parameters();
    std::vector<torch::Tensor> out;
    for (const auto& p : script->parameters()) out.push_back(p);
    return out;
  }
  // State that is not trained (BatchNorm's running statistics); the built-in models have none.
  std::vector<torch::Tensor> buffers() const {
    std::vector<torch::Tensor> out;
    if (script) {
      for (const auto& b : script->buffers()) out.push_back(b);
    }
    return out;
  }
};

struct TorchNetwork final : Network {
  std::shared_ptr<const ScriptArchive> script;  // model.name torchscript

  explicit TorchNetwork(const ModelConfig& c);
  std::vector<float> init_params(uint64_t seed) const override;
  std::unique_ptr<Trainer> trainer(const Dataset* statistics) const override;

  // Builds a fresh network (built-in: LibTorch's default initialisation from the global generator;
  // TorchScript: the archive's weights) and, given `recorded` (the constructor's own), records the
  // layer layout and FLOPs there (a TorchScript module's were measured with its archive).
  // Callers hold build_mutex.
  Net build(Network* recorded = nullptr) const {
    if (script) return Net{nullptr, load_script(*script), script, config.classes};
    torch::nn::Sequential net;
    double flops = 0;
    std::vector<std::string> names;
    auto linear = [&](int64_t in, int64_t out) {
      net->push_back(torch::nn::Linear(in, out));
      flops += 2.0 * in * out + out;
      names.push_back("fc" + std::to_string(names.size() / 2 + 1));
      names.push_back(names.back());
    };
    std::vector<int64_t> hidden = config.hidden;
    if (config.name == "mlp") {
      if (hidden.empty()) hidden = {128};
      int64_t in = config.channels * config.height * config.width;
      net->push_back(torch::nn::Flatten());
      for (int64_t h : hidden) {
        linear(in, h);
        net->push_back(torch::nn::ReLU());
        in = h;
      }
      linear(in, config.classes);
    } else if (config.name == "cnn") {
      if (hidden.empty()) hidden = {50};
      int64_t c = config.channels, h = config.height, w = config.width;
      const int64_t kernel = config.conv_kernel;
      for (size_t i = 0; i < config.conv_channels.size(); ++i) {
        const int64_t out = config.conv_channels[i];
        const int64_t oh = conv_output_side(config, h), ow = conv_output_side(config, w);
        net->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(c, out, kernel).padding(conv_padding(config))));
        flops += (2.0 * c * kernel * kernel + 1) * out * oh * ow;
        names.push_back("conv" + std::to_string(i + 1));
        names.push_back(names.back());
        net->push_back(torch::nn::MaxPool2d(2));
        net->push_back(torch::nn::ReLU());
        c = out;
        h = oh / 2;
        w = ow / 2;
      }
      net->push_back(torch::nn::Flatten());
      int64_t in = c * h * w;
      const size_t conv_layers = names.size();
      for (int64_t width : hidden) {
        linear(in, width);
        net->push_back(torch::nn::ReLU());
        in = width;
      }
      linear(in, config.classes);
      // Linear layers are numbered from 1 after the convolutions.
      for (size_t i = conv_layers; i < names.size(); ++i) names[i] = "fc" + std::to_string((i - conv_layers) / 2 + 1);
    } else {
      throw ModelError("model.name: unknown model \"" + config.name + "\"");
    }
    if (recorded) {
      Network& self = *recorded;
      self.forward_flops = flops;
      int64_t offset = 0;
      size_t i = 0;
      for (const auto& p : net->parameters()) {
        LayerInfo info;
        info.name = names.at(i) + (i % 2 == 0 ? ".weight" : ".bias");
        info.shape = p.sizes().vec();
        info.offset = offset;
        info.numel = p.numel();
        offset += info.numel;
        self.layers.push_back(info);
        ++i;
      }
      self.num_params = offset;
    }
    return Net{net, std::nullopt, nullptr, 0};
  }
};

TorchNetwork::TorchNetwork(const ModelConfig& c) {
  single_threaded_blas();
  config = c;
  if (config.name == "torchscript") {
    const MeasuredScript& m = measured_script(config);
    script = m.archive;
    layers = m.shape.layers;
    num_params = static_cast<int64_t>(m.shape.params);
    forward_flops = m.shape.forward_flops_per_sample;
    return;
  }
  const std::lock_guard lock(build_mutex);
  allocating([&] { return build(this); });
}

std::vector<float> TorchNetwork::init_params(uint64_t seed) const {
  const std::lock_guard lock(build_mutex);
  torch::manual_seed(seed);
  auto net = allocating([&] { return build(); });
  std::vector<float> flat;
  flat.reserve(static_cast<size_t>(num_params));
  for (const auto& p : net.parameters()) {
    auto c = p.detach().contiguous();
    flat.insert(flat.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
  return flat;
}

// Buffers (BatchNorm's running statistics) are not federated: updates are gradients and deltas,
// which have no place for them. Every training step starts from the archive's buffers (so no
// device's step leaves anything in a worker's network for the next one), and before an
// evaluation they are re-estimated from the training set with the parameters evaluated, as
// torch.optim.swa_utils.update_bn does: forward passes in training mode over kStatisticsBatches
// batches of kStatisticsBatch samples, enough for the default momentum (0.1) to leave under 1% of
// the starting values.
constexpr int64_t kStatisticsBatches = 50, kStatisticsBatch = 100;

struct TorchTrainer final : Trainer {
  const TorchNetwork& model;
  Net net;
  std::vector<torch::Tensor> params;  // net's parameters, in layout order
  std::vector<torch::Tensor> buffers, initial_buffers;
  const Dataset* statistics = nullptr;

  void reset_buffers() {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(initial_buffers[i]);
  }

  // The buffers for the parameters loaded, from the statistics set (see kStatisticsBatches).
  void estimate_buffers() {
    reset_buffers();
    if (buffers.empty() || !statistics || statistics->size() == 0) return;
    torch::NoGradGuard no_grad;
    net.train(true);
    std::vector<int64_t> indices(static_cast<size_t>(kStatisticsBatch));
    for (int64_t b = 0; b < kStatisticsBatches; ++b) {
      for (int64_t i = 0; i < kStatisticsBatch; ++i) indices[i] = (b * kStatisticsBatch + i) % statistics->size();
      net.forward(batch_tensors(*statistics, indices).first);
    }
  }

  // Points the network's parameters at `flat` (read only: forward and backward never write them).
  void load(std::span<const float> flat) {
    if (static_cast<int64_t>(flat.size()) != model.num_params) {
      throw ModelError("model: expected " + std::to_string(model.num_params) + " parameters, got " +
                       std::to_string(flat.size()));
    }
    torch::NoGradGuard no_grad;  // held only within this call, never across a simulation call
    for (size_t i = 0; i < params.size(); ++i) {
      const LayerInfo& l = model.layers[i];
      params[i].set_data(torch::from_blob(const_cast<float*>(flat.data() + l.offset), l.shape, torch::kFloat32));
    }
  }

  std::pair<torch::Tensor, torch::Tensor> batch_tensors(const Dataset& data, std::span<const int64_t> batch) const {
    const int64_t n = static_cast<int64_t>(batch.size());
    const int64_t s = data.sample_size();
    auto x = torch::empty({n, data.channels, data.height, data.width}, torch::kFloat32);
    auto y = torch::empty({n}, torch::kInt64);
    float* xp = x.data_ptr<float>();
    int64_t* yp = y.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t idx = batch[i];
      data.copy_sample(idx, xp + i * s);
      yp[i] = data.labels[idx];
    }
    return {x, y};
  }

  TorchTrainer(const TorchNetwork& m, Net n, const Dataset* stats)
      : model(m), net(std::move(n)), params(net.parameters()), buffers(net.buffers()), statistics(stats) {
    for (auto& p : params) p.requires_grad_(true);  // every parameter is trained, frozen or not
    for (const auto& b : buffers) initial_buffers.push_back(b.clone());
  }

  double gradient(std::span<const float> flat, const Dataset& data, std::span<const int64_t> batch,
                  std::span<float> gradient) override {
    return allocating([&] {
      load(flat);
      reset_buffers();
      net.train(true);
      for (auto& p : params) p.mutable_grad() = torch::Tensor();
      auto [x, y] = batch_tensors(data, batch);
      auto loss = torch::nn::functional::cross_entropy(net.forward(x), y);
      loss.backward();
      for (size_t i = 0; i < params.size(); ++i) {
        const LayerInfo& l = model.layers[i];
        auto g = params[i].grad().contiguous();
        std::copy_n(g.data_ptr<float>(), l.numel, gradient.data() + l.offset);
      }
      return loss.item<double>();
    });
  }

  std::shared_ptr<const NormStatistics> norm_statistics(std::span<const float> flat) override {
    if (buffers.empty()) return nullptr;
    load(flat);
    estimate_buffers();
    auto out = std::make_shared<NormStatistics>();
    for (const auto& b : buffers) out->buffers.push_back(b.clone());
    return out;
  }

  std::optional<EvalResult> evaluate(std::span<const float> flat, const Dataset& data, int64_t limit,
                                     const std::function<bool()>& cancelled, const NormStatistics* fixed) override {
    load(flat);
    if (fixed) {
      torch::NoGradGuard no_grad;
      for (size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(fixed->buffers.at(i));
    } else {
      estimate_buffers();
    }
    net.train(false);
    torch::NoGradGuard no_grad;
    const int64_t n = limit > 0 ? std::min(limit, data.size()) : data.size();
    constexpr int64_t chunk = 1000;
    std::vector<int64_t> indices;
    double loss_sum = 0;
    int64_t correct = 0;
    for (int64_t begin = 0; begin < n; begin += chunk) {
      if (begin > 0 && cancelled()) return std::nullopt;
      const int64_t end = std::min(n, begin + chunk);
      indices.resize(static_cast<size_t>(end - begin));
      for (int64_t i = begin; i < end; ++i) indices[i - begin] = i;
      auto [x, y] = batch_tensors(data, indices);
      auto logits = net.forward(x);
      loss_sum += torch::nn::functional::cross_entropy(
                      logits, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                      .item<double>();
      correct += logits.argmax(1).eq(y).sum().item<int64_t>();
    }
    EvalResult r;
    r.samples = n;
    r.accuracy = n > 0 ? static_cast<double>(correct) / n : 0;
    r.loss = n > 0 ? loss_sum / n : 0;
    return r;
  }
};

std::unique_ptr<Trainer> TorchNetwork::trainer(const Dataset* statistics) const {
  // One intra-op thread per worker (the pool is the parallelism): OpenMP's setting is per
  // thread, and its reductions would otherwise change the low digits between runs.
  at::set_num_threads(1);
  const std::lock_guard lock(build_mutex);
  auto net = allocating([&] { return build(); });
  return std::make_unique<TorchTrainer>(*this, std::move(net), statistics);
}

const TorchModule kTable{
    [](const ModelConfig& config) -> std::unique_ptr<Network> { return std::make_unique<TorchNetwork>(config); },
    [](const ModelConfig& config) { return measured_script(config).shape; },
    watch_stop_flag,
};

}  // namespace
}  // namespace edgetrain::learn

extern "C" __attribute__((visibility("default"))) const edgetrain::learn::TorchModule* edgetrain_torch_module() {
  return &edgetrain::learn::kTable;
}
