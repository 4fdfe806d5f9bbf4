// The user's own model: a TorchScript archive (torch.jit.script or torch.jit.trace, then .save).
// The file is read once into memory; every network (the model's and each worker's) is a fresh
// module loaded from those bytes. The checks say in one line what keeps a module from training on
// the data set, and its shape (parameters, FLOPs, activations) is measured by running it once.
// LibTorch-facing: only learn's own sources include it.
#pragma once

#include <csignal>
#include <filesystem>
#include <memory>
#include <string>

#include <torch/script.h>

#include "learn/model.hpp"
#include "learn/model_shape.hpp"

namespace edgetrain::learn {

struct ScriptArchive {
  std::filesystem::path file;
  std::string bytes;
};

// A fresh module from the archive, or a ModelError when the bytes are not a TorchScript archive.
// The graph executor runs scripted graphs as written (no fusion, no profiling-driven rewrites
// after a few calls), so a step computes the same digits on every worker, however many steps
// that worker has run.
torch::jit::Module load_script(const ScriptArchive& archive);

// The archive of `config.file` and its checked, measured shape (check_and_measure): read and
// measured once per file and input in a process, since the memory estimate, the charged costs
// and the model all ask. ModelError naming the file when it cannot be read or fails a check.
struct MeasuredScript {
  std::shared_ptr<const ScriptArchive> archive;
  ModelShape shape;
};
const MeasuredScript& measured_script(const ModelConfig& config);

// The program's stop flag, for the watchdog of the model's own code (torchscript.cpp): a signal that
// comes while a module's forward runs, and that forward not returned a second later, ends the process.
void watch_stop_flag(const volatile std::sig_atomic_t* flag);

// The module's forward on a training or evaluation batch `x`: its float32 logits [batch, classes]
// (`classes` <= 0: any). A module that passed check_and_measure's batch of 2 can still fail on
// another (a batch size written into its code, an operator it calls only then): a ModelError naming
// the file, in one line, instead of LibTorch's multi-line error.
torch::Tensor script_forward(torch::jit::Module& module, const ScriptArchive& archive, const torch::Tensor& x,
                             int64_t classes);

// Checks `module` against the configuration's sample shape and classes: at least one parameter,
// every parameter float32, a forward taking a [2, channels, height, width] float batch and
// returning [2, classes] (any classes when config.classes is 0); then measures it (layers in parameter order, per-operation costs of one
// forward pass). ModelError otherwise, naming the file and what is wrong.
ModelShape check_and_measure(torch::jit::Module& module, const ScriptArchive& archive, const ModelConfig& config);

}  // namespace edgetrain::learn
