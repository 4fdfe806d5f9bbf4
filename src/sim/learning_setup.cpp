// See learning_setup.hpp.
#include "sim/learning_setup.hpp"

#include "learn/partition.hpp"
#include "util/seed.hpp"

namespace edgetrain::sim {

learn::DatasetPair load_data(const scenario::Scenario& s) {
  const auto& d = s.dataset;
  if (d.name == "synthetic") {
    learn::SyntheticSpec spec;
    spec.channels = d.shape.at(0);
    spec.height = d.shape.at(1);
    spec.width = d.shape.at(2);
    spec.classes = d.classes;
    spec.train_samples = d.train_samples;
    spec.test_samples = s.eval.test_samples;
    spec.noise = d.noise;
    spec.seed = util::derive_seed(s.seed, "synthetic-data");
    return learn::make_synthetic_dataset(spec);
  }
  return learn::load_idx_dataset(d.path, d.train_samples, s.eval.test_samples);
}

learn::ModelConfig model_config(const scenario::Scenario& s, const learn::Dataset& train) {
  learn::ModelConfig c;
  c.name = s.model.name;
  c.hidden = s.model.hidden;
  c.conv_channels = s.model.conv_channels;
  c.channels = train.channels;
  c.height = train.height;
  c.width = train.width;
  c.classes = train.classes;
  return c;
}

std::vector<std::vector<int64_t>> partition_data(const scenario::Scenario& s, const learn::Dataset& train) {
  learn::PartitionConfig c;
  c.kind = s.dataset.partition.kind;
  c.labels_per_device = s.dataset.partition.labels_per_device;
  c.alpha = s.dataset.partition.alpha;
  c.seed = s.seed;
  return learn::partition_indices(train.labels, train.classes, static_cast<int64_t>(s.devices.size()), c);
}

}  // namespace edgetrain::sim
