// See learning_setup.hpp.
#include "backend/learning_setup.hpp"

#include "learn/partition.hpp"
#include "util/seed.hpp"

namespace edgetrain::backend {

namespace {

learn::SyntheticSpec synthetic_spec(const scenario::Scenario& s) {
  const auto& d = s.dataset;
  learn::SyntheticSpec spec;
  spec.channels = d.shape.at(0);
  spec.height = d.shape.at(1);
  spec.width = d.shape.at(2);
  spec.classes = d.classes;
  spec.train_samples = d.train_samples;
  spec.test_samples = s.eval.test_samples;
  spec.noise = d.noise;
  spec.seed = util::derive_seed(s.seed, "synthetic-data");
  return spec;
}

}  // namespace

learn::DatasetPair load_data(const scenario::Scenario& s) {
  const auto& d = s.dataset;
  if (d.name == "synthetic") return learn::make_synthetic_dataset(synthetic_spec(s));
  return learn::load_idx_dataset(d.path, d.train_samples, s.eval.test_samples);
}

learn::DatasetShape data_shape(const scenario::Scenario& s) {
  const auto& d = s.dataset;
  if (d.name == "synthetic") return learn::synthetic_shape(synthetic_spec(s));
  return learn::idx_dataset_shape(d.path, d.train_samples, s.eval.test_samples);
}

learn::KnownData known_data(const scenario::Scenario& s) {
  const auto& d = s.dataset;
  return learn::known_dataset_shape(
      {.dataset = d.name, .train_samples = d.train_samples, .test_samples = s.eval.test_samples, .shape = d.shape,
       .classes = d.classes, .model = s.model.name});
}

learn::ModelConfig model_config(const scenario::Scenario& s, const learn::DatasetShape& data) {
  learn::ModelConfig c;
  c.name = s.model.name;
  c.file = s.model.file;
  c.hidden = s.model.hidden;
  c.conv_channels = s.model.conv_channels;
  c.conv_kernel = s.model.conv_kernel;
  c.conv_same = s.model.conv_padding == "same";
  c.channels = data.channels;
  c.height = data.height;
  c.width = data.width;
  c.classes = data.classes;
  return c;
}

namespace {
learn::PartitionConfig partition_config(const scenario::Scenario& s) {
  learn::PartitionConfig c;
  c.kind = s.dataset.partition.kind;
  c.labels_per_device = s.dataset.partition.labels_per_device;
  c.alpha = s.dataset.partition.alpha;
  c.seed = s.seed;
  return c;
}
}  // namespace

std::vector<std::vector<int64_t>> partition_data(const scenario::Scenario& s, const learn::Dataset& train) {
  return learn::partition_indices(train.labels, train.classes, static_cast<int64_t>(s.devices.size()),
                                  partition_config(s));
}

std::vector<std::vector<int64_t>> partition_counts(const scenario::Scenario& s, const learn::DatasetShape& shape) {
  std::vector<int64_t> labels(static_cast<size_t>(shape.train_samples));
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int64_t>(i) % shape.classes;
  return learn::partition_indices(labels, shape.classes, static_cast<int64_t>(s.devices.size()), partition_config(s));
}

}  // namespace edgetrain::backend
