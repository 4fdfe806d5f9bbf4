// See mode.hpp.
#include "backend/mode.hpp"

#include <stdexcept>

namespace edgetrain::backend {
namespace {

Mode::Kind kind_of(const std::string& mode) {
  if (mode == "sync") return Mode::Kind::Sync;
  if (mode == "scadles") return Mode::Kind::Scadles;
  if (mode == "async") return Mode::Kind::Async;
  if (mode == "local-sgd") return Mode::Kind::LocalSgd;
  throw std::invalid_argument("training.mode: unknown mode \"" + mode + "\"");  // the schema refuses it first
}

}  // namespace

Mode::Mode(const scenario::TrainingSpec& t, size_t devices)
    : kind_(kind_of(t.mode)),
      name_(t.mode),
      on_arrival_(t.applies_on_arrival()),
      steps_(kind_ == Kind::LocalSgd ? t.local_steps : 1),
      // FedAvg weights local-sgd's deltas by samples; ScaDLES its gradients by batch (unless uniform).
      by_samples_(kind_ == Kind::LocalSgd || (kind_ == Kind::Scadles && t.weighting == "batch")),
      linear_lr_(kind_ == Kind::Scadles && t.lr_scaling == "linear"),
      lr_(kind_ == Kind::LocalSgd ? t.server_lr : t.lr),
      base_global_batch_(static_cast<double>(t.base_global_batch > 0 ? t.base_global_batch
                                                                     : t.batch_size * static_cast<int64_t>(devices))) {}

}  // namespace edgetrain::backend
