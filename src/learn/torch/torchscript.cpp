// See torchscript.hpp.
#include "learn/torch/torchscript.hpp"

#include <torch/csrc/jit/python/update_graph_executor_opt.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <sstream>

#include "learn/torch/op_profile.hpp"
#include "learn/torch/torch_pch.hpp"
#include "util/printable.hpp"
#include "util/read_input.hpp"

namespace edgetrain::learn {
namespace {

// A parameter's module: its name up to the last dot ("features.1" of "features.1.weight").
std::string module_name(const std::string& parameter) {
  const size_t dot = parameter.rfind('.');
  return dot == std::string::npos ? std::string() : parameter.substr(0, dot);
}

// The model's own code (a TorchScript forward) cannot be stopped: LibTorch has no cancellation, and a
// module whose forward never returns would keep the process through Ctrl-C, which only sets the stop
// flag. While such code runs, a watchdog looks at the flag: once a signal came and the code has still
// not returned a second later, the process ends with one line and exit 130 (its results cannot be
// written: the thread that would write them is the one running the code, or waits for it).
std::atomic<int> in_model_code{0};
std::atomic<const volatile std::sig_atomic_t*> stop_flag{nullptr};  // the program's: this module has a copy

bool stop_requested() {
  const volatile std::sig_atomic_t* flag = stop_flag.load();
  return flag && *flag != 0;
}

void watch_model_code() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::thread([] {
      int stuck_ms = 0;
      while (true) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        stuck_ms = stop_requested() && in_model_code.load() > 0 ? stuck_ms + 100 : 0;
        if (stuck_ms >= 1000) {
          static const char message[] =
              "edgetrain: interrupted while the model's code (model.file's forward) ran and did not return; "
              "nothing more was written\n";
          (void)!::write(2, message, sizeof message - 1);
          ::_exit(130);
        }
      }
    }).detach();
  });
}

// Marks the model's code running for the watchdog.
class ModelCode {
 public:
  ModelCode() {
    watch_model_code();
    ++in_model_code;
  }
  ~ModelCode() { --in_model_code; }
  ModelCode(const ModelCode&) = delete;
  ModelCode& operator=(const ModelCode&) = delete;
};

std::string shown(const std::filesystem::path& file) { return "model.file: " + file.string(); }

// LibTorch's messages run over many lines (TorchScript tracebacks); the last line says what failed.
std::string last_line(const std::string& text) {
  std::string s = text;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  const size_t nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

std::string dims(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

// What forward returned for a batch of `batch`: float32 logits [batch, classes] (`classes` <= 0: any),
// else a ModelError naming the file and what it returned.
void check_logits(const c10::IValue& result, const ScriptArchive& archive, int64_t batch, int64_t classes) {
  std::vector<int64_t> want{batch, classes};
  if (!result.isTensor()) {
    throw ModelError(shown(archive.file) + ": forward returns a " + result.tagKind() + ", not a tensor [batch, classes] = " +
                     dims(want));
  }
  if (result.toTensor().scalar_type() != torch::kFloat32) {
    throw ModelError(shown(archive.file) + ": forward returns " +
                     std::string(c10::toString(result.toTensor().scalar_type())) +
                     " values; the loss needs float32 logits [batch, classes]");
  }
  const std::vector<int64_t> got = result.toTensor().sizes().vec();
  if (classes <= 0 && got.size() == 2 && got[1] > 0) want[1] = got[1];  // any number of classes
  if (got != want) {
    throw ModelError(shown(archive.file) + ": forward returns " + dims(got) + " for a batch of " + std::to_string(batch) +
                     ", not [batch, classes] = " + dims(want));
  }
}

// A TorchScript archive is read whole: 4 GiB holds a model of a billion parameters.
constexpr util::InputRule kModelInput{"the model file", 4096 * util::kMiB, false,
                                      "a model is a TorchScript archive on disk (torch.jit.save)"};

// The file's bytes (ModelError naming it when it cannot be read, is no regular file or is too large).
std::shared_ptr<const ScriptArchive> read_script(const std::filesystem::path& file) {
  try {
    return std::make_shared<const ScriptArchive>(ScriptArchive{file, util::read_input(file, kModelInput)});
  } catch (const util::ReadError& e) {
    throw ModelError("model.file: " + std::string(e.what()));
  }
}

}  // namespace

torch::jit::Module load_script(const ScriptArchive& archive) {
  static std::once_flag once;
  std::call_once(once, [] { torch::jit::setGraphExecutorOptimize(false); });
  std::istringstream in(archive.bytes);
  try {
    return torch::jit::load(in, torch::kCPU);
  } catch (const c10::Error& e) {
    throw ModelError(shown(archive.file) + " is not a TorchScript archive (torch.jit.save's file): " +
                     util::printable(last_line(e.what_without_backtrace())));
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {  // the importer's own errors (an unknown operator) are not c10::Errors
    throw ModelError(shown(archive.file) + " does not load as a TorchScript module: " +
                     util::printable(last_line(e.what())));
  }
}

ModelShape check_and_measure(torch::jit::Module& module, const ScriptArchive& archive, const ModelConfig& config) {
  ModelShape s;
  int64_t offset = 0;
  // The normalisation modules, by their class names (torch.nn's BatchNorm1d/2d/3d, GroupNorm, LayerNorm,
  // InstanceNorm...), for FedBN.
  std::set<std::string> norm_modules;
  for (const auto& m : module.named_modules()) {
    const auto type = m.value.type()->name();
    if (type && type->name().find("Norm") != std::string::npos) norm_modules.insert(m.name);
  }
  for (const auto& p : module.named_parameters()) {
    if (p.value.layout() != torch::kStrided) {
      throw ModelError(shown(archive.file) + ": parameter " + p.name +
                       " is sparse; edgetrain trains dense float32 parameters (call .to_dense() before saving)");
    }
    if (p.value.scalar_type() != torch::kFloat32) {
      throw ModelError(shown(archive.file) + ": parameter " + p.name + " is " +
                       std::string(c10::toString(p.value.scalar_type())) +
                       "; edgetrain trains float32 parameters (call .float() before saving)");
    }
    s.layers.push_back({p.name, p.value.sizes().vec(), offset, p.value.numel(), norm_modules.count(module_name(p.name)) > 0});
    offset += p.value.numel();
  }
  if (offset == 0) throw ModelError(shown(archive.file) + " has no trainable parameter");
  s.params = static_cast<double>(offset);

  constexpr int64_t kBatch = 2;  // BatchNorm in training mode needs more than one value per channel
  const std::vector<int64_t> input{kBatch, config.channels, config.height, config.width};
  module.eval();
  torch::NoGradGuard no_grad;
  c10::IValue result;
  std::vector<OpCall> calls;
  try {
    const ModelCode running;
    calls = record_ops([&] { result = module.forward({torch::zeros(input)}); });
  } catch (const std::exception& e) {  // the interpreter's errors are std::runtime_error, ATen's c10::Error
    throw ModelError(shown(archive.file) + ": forward does not take the data set's samples (a float batch " +
                     dims(input) + "): " + last_line(e.what()));
  }
  check_logits(result, archive, kBatch, config.classes);
  const OpCosts costs = cost_ops(calls, kBatch);
  s.compute_layers = costs.layers;
  s.forward_flops_per_sample = forward_flops(costs.layers);
  s.activation_floats_per_sample = static_cast<double>(config.channels * config.height * config.width) +
                                   costs.activation_floats_per_sample;
  return s;
}

void watch_stop_flag(const volatile std::sig_atomic_t* flag) { stop_flag = flag; }

torch::Tensor script_forward(torch::jit::Module& module, const ScriptArchive& archive, const torch::Tensor& x,
                             int64_t classes) {
  c10::IValue result;
  try {
    const ModelCode running;
    result = module.forward({x});
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    if (std::string_view(e.what()).find("can't allocate memory") != std::string_view::npos) throw std::bad_alloc();
    throw ModelError(shown(archive.file) + ": forward fails on a batch " + dims(x.sizes().vec()) + ": " +
                     util::printable(last_line(e.what())));
  }
  check_logits(result, archive, x.size(0), classes);
  return result.toTensor();
}

const MeasuredScript& measured_script(const ModelConfig& config) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>, MeasuredScript> measured;
  const auto key = std::make_tuple(config.file.string(), config.channels, config.height, config.width, config.classes);
  const std::lock_guard lock(mutex);
  if (auto it = measured.find(key); it != measured.end()) return it->second;
  MeasuredScript m{read_script(config.file), {}};
  torch::jit::Module module = load_script(*m.archive);
  m.shape = check_and_measure(module, *m.archive, config);
  return measured.emplace(key, std::move(m)).first->second;  // std::map: references stay valid
}

}  // namespace edgetrain::learn
