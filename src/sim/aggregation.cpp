// See aggregation.hpp.
#include "sim/aggregation.hpp"

namespace edgetrain::sim {

bool applies_on_arrival(const scenario::TrainingSpec& t) {
  return t.mode == "async" || (t.mode == "local-sgd" && t.aggregation == "async");
}

double server_lr(const scenario::TrainingSpec& t) { return t.mode == "local-sgd" ? t.server_lr : t.lr; }

Aggregation aggregation_for(const scenario::TrainingSpec& t, int64_t base_global_batch,
                            const std::vector<int64_t>& samples) {
  const size_t n = samples.size();
  Aggregation agg;
  agg.lr = server_lr(t);
  agg.weights.assign(n, 1.0 / static_cast<double>(n));
  double total = 0;
  for (int64_t s : samples) total += static_cast<double>(s);
  // FedAvg weights local-sgd's deltas by samples; ScaDLES its gradients by batch (unless uniform).
  const bool scadles = t.mode == "scadles";
  if (t.mode == "local-sgd" || (scadles && t.weighting == "batch")) {
    for (size_t i = 0; i < n; ++i) agg.weights[i] = static_cast<double>(samples[i]) / total;
  }
  if (scadles && t.lr_scaling == "linear") agg.lr = t.lr * total / static_cast<double>(base_global_batch);
  return agg;
}

}  // namespace edgetrain::sim
