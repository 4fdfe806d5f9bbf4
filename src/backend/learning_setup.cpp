// See learning_setup.hpp.
#include "backend/learning_setup.hpp"

#include "learn/fedscale.hpp"
#include "learn/images.hpp"
#include "learn/leaf.hpp"
#include "learn/npz.hpp"
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

namespace {

learn::NpzSpec npz_spec(const scenario::Scenario& s) {
  const auto& d = s.dataset;
  return {.file = d.file,
          .x_train = d.arrays.x_train,
          .y_train = d.arrays.y_train,
          .x_test = d.arrays.x_test,
          .y_test = d.arrays.y_test,
          .channels_at = d.channels_at,
          .users = d.partition.kind == "natural" ? d.arrays.users : std::string(),
          .classes = d.classes,
          .train_limit = d.train_samples,
          .test_limit = s.eval.test_samples};
}
learn::ImageFolderSpec images_spec(const scenario::Scenario& s) {
  return {.dir = s.dataset.path,
          .user_folders = s.dataset.layout == "user/class",
          .train_limit = s.dataset.train_samples,
          .test_limit = s.eval.test_samples};
}
learn::LeafSpec leaf_spec(const scenario::Scenario& s) {
  const auto& d = s.dataset;
  return {.dir = d.path,
          .shape = d.shape,
          .classes = d.classes,
          .train_limit = d.train_samples,
          .test_limit = s.eval.test_samples};
}
learn::FedScaleSpec fedscale_spec(const scenario::Scenario& s) {
  const auto& d = s.dataset;
  return {.dir = d.path, .classes = d.classes, .train_limit = d.train_samples, .test_limit = s.eval.test_samples};
}

// The formats read from the user's files (not the published IDX sets nor synthetic data).
bool read_from_files(const std::string& name) {
  return name == "npz" || name == "images" || name == "leaf" || name == "fedscale";
}

}  // namespace

learn::DatasetPair load_data(const scenario::Scenario& s) {
  const auto& d = s.dataset;
  if (d.name == "synthetic") return learn::make_synthetic_dataset(synthetic_spec(s));
  if (d.name == "npz") return learn::load_npz_dataset(npz_spec(s));
  if (d.name == "images") return learn::load_image_folder(images_spec(s));
  if (d.name == "leaf") return learn::load_leaf_dataset(leaf_spec(s));
  if (d.name == "fedscale") return learn::load_fedscale_dataset(fedscale_spec(s));
  return learn::load_idx_dataset(d.path, d.train_samples, s.eval.test_samples);
}

learn::DatasetShape data_shape(const scenario::Scenario& s) {
  const auto& d = s.dataset;
  if (d.name == "synthetic") return learn::synthetic_shape(synthetic_spec(s));
  if (d.name == "npz") return learn::npz_dataset_shape(npz_spec(s));
  if (d.name == "images") return learn::image_folder_shape(images_spec(s));
  if (d.name == "leaf") return learn::leaf_dataset_shape(leaf_spec(s));
  if (d.name == "fedscale") return learn::fedscale_dataset_shape(fedscale_spec(s));
  return learn::idx_dataset_shape(d.path, d.train_samples, s.eval.test_samples);
}

learn::KnownData known_data(const scenario::Scenario& s) {
  const auto& d = s.dataset;
  if (read_from_files(d.name)) {
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
