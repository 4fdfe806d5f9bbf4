// See learning_setup.hpp.
#include "backend/learning_setup.hpp"

#include "backend/data_sources.hpp"
#include "learn/partition.hpp"

namespace edgetrain::backend {

learn::DatasetPair load_data(const scenario::Scenario& s) { return data_source(s.dataset.name).load(s); }

learn::DatasetShape data_shape(const scenario::Scenario& s) { return data_source(s.dataset.name).shape(s); }

learn::KnownData known_data(const scenario::Scenario& s) {
  const auto& d = s.dataset;
  if (data_source(d.name).own_files) {
    // No published size to take: the headers, listings and counts of the files.
    const learn::DatasetShape shape = data_shape(s);
    const std::string where = (d.name == "npz" ? d.file : d.path).string();
    return learn::known_from_headers(shape, d.name + " (" + where + ", headers and counts)", s.model.name);
  }
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
  c.users_per_device = s.dataset.partition.users_per_device;
  c.shuffle_users = s.dataset.partition.shuffle_users;
  c.seed = s.seed;
  return c;
}

// The parts the data is split into: one per device, or dataset.partition.parts dealt in turn.
int64_t part_count(const scenario::Scenario& s) {
  const auto devices = static_cast<int64_t>(s.devices.size());
  const int64_t parts = s.dataset.partition.parts.value_or(devices);
  if (parts > devices) {
    throw learn::PartitionError("dataset.partition.parts: " + std::to_string(parts) + " parts for " +
                                std::to_string(devices) + " devices; at most one part per device");
  }
  return parts;
}
}  // namespace

learn::DeviceParts partition_data(const scenario::Scenario& s, const learn::Dataset& train) {
  const int64_t parts = part_count(s);
  return {s.dataset.partition.kind == "natural"
              ? learn::natural_partition(train.sample_users, parts, partition_config(s))
              : learn::partition_indices(train.labels, train.classes, parts, partition_config(s)),
          s.devices.size()};
}

learn::DeviceParts partition_counts(const scenario::Scenario& s, const learn::DatasetShape& shape) {
  const int64_t parts = part_count(s);
  if (s.dataset.partition.kind == "natural") {
    // Each user's samples, contiguous in user order, as counted from the files.
    std::vector<int64_t> users;
    for (size_t u = 0; u < shape.user_samples.size(); ++u)
      users.insert(users.end(), static_cast<size_t>(shape.user_samples[u]), static_cast<int64_t>(u));
    return learn::DeviceParts::sizes_of(learn::natural_partition(users, parts, partition_config(s)), s.devices.size());
  }
  // Nothing is read, so a fleet larger than the data set still gets a sample per part: the counts
  // are those of a data set of max(samples, parts) (a population of a million on Fashion-MNIST).
  std::vector<int64_t> labels(static_cast<size_t>(std::max(shape.train_samples, parts)));
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int64_t>(i) % shape.classes;
  return learn::DeviceParts::sizes_of(learn::partition_indices(labels, shape.classes, parts, partition_config(s)),
                                      s.devices.size());
}

}  // namespace edgetrain::backend
