// See data_sources.hpp. Each row turns the scenario's dataset section into its reader's spec.
#include "backend/data_sources.hpp"

#include <array>

#include "learn/fedscale.hpp"
#include "learn/images.hpp"
#include "learn/leaf.hpp"
#include "learn/npz.hpp"
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

// The row of a reader: its load and shape functions on the spec `make` builds.
template <auto make, auto load, auto shape>
constexpr DataSource row(std::string_view name, bool own_files) {
  return {name, [](const scenario::Scenario& s) { return load(make(s)); },
          [](const scenario::Scenario& s) { return shape(make(s)); }, own_files};
}

const auto kSources = std::to_array<DataSource>({
    {"idx",
     [](const scenario::Scenario& s) {
       return learn::load_idx_dataset(s.dataset.path, s.dataset.train_samples, s.eval.test_samples);
     },
     [](const scenario::Scenario& s) {
       return learn::idx_dataset_shape(s.dataset.path, s.dataset.train_samples, s.eval.test_samples);
     },
     false},
    row<synthetic_spec, learn::make_synthetic_dataset, learn::synthetic_shape>("synthetic", false),
    row<npz_spec, learn::load_npz_dataset, learn::npz_dataset_shape>("npz", true),
    row<images_spec, learn::load_image_folder, learn::image_folder_shape>("images", true),
    row<leaf_spec, learn::load_leaf_dataset, learn::leaf_dataset_shape>("leaf", true),
    row<fedscale_spec, learn::load_fedscale_dataset, learn::fedscale_dataset_shape>("fedscale", true),
});

}  // namespace

const DataSource& data_source(const std::string& name) {
  for (const DataSource& source : kSources)
    if (source.name == name) return source;
  return kSources.front();  // fashion-mnist and mnist: IDX files
}

}  // namespace edgetrain::backend
