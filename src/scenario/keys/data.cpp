// See data.hpp.
#include "scenario/keys/data.hpp"

#include <cstdint>

#include "scenario/error.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {
namespace {

constexpr int64_t kMaxSampleValues = int64_t{1} << 24;  // dataset.shape's product

// `k` defaults to null (meaning its null_means) when `c` holds: its other defaults come after.
KeySpec null_if(KeySpec k, Condition c) {
  k.defaults.push_back({std::move(c), DefaultRule::Kind::Null, nullptr, {}});
  return k;
}

}  // namespace

std::vector<KeySpec> data_rows() {
  using nlohmann::json;
  const Condition real = when("training.compute", {"real"});
  const Condition synthetic = when("dataset.name", {"synthetic"});
  const Condition npz = when("dataset.name", {"npz"});
  const Condition folders = when("dataset.name", {"images", "leaf", "fedscale"});
  const Condition natural = when("dataset.partition.kind", {"natural"});
  return {
      enum_key("dataset.name", {"fashion-mnist", "mnist", "synthetic", "npz", "images", "leaf", "fedscale"},
               "Training data: IDX files (fashion-mnist, mnist), generated class clusters (synthetic), a NumPy "
               ".npz archive, an image folder per class (images), a LEAF folder (leaf) or a FedScale folder "
               "(fedscale); see the how-to \"Your data\". Timing-only runs read no IDX file: they take the "
               "data set's known size (fashion-mnist and mnist: 60000 training and 10000 test samples of "
               "1x28x28, 10 classes; synthetic: its keys); without one, the sizes of the catalogue model's "
               "reference data set, else fashion-mnist's. For npz, images, leaf and fedscale they read the "
               "headers, listings and counts only.")
          .required_if(real)
          .null_default("no data set (timing-only runs only)")
          .fills(&Scenario::dataset, &DatasetSpec::name),
      path_key("dataset.path", PathKind::Directory,
               "Folder holding the IDX files (gzipped or not); images: train/ and test/ holding a folder per "
               "class; leaf: LEAF's train/ and test/ JSON folders; fedscale: client_data_mapping/ with train/ "
               "and test/.")
          .must_exist_only_when(real)
          .only_when(when("dataset.name", {"fashion-mnist", "mnist", "images", "leaf", "fedscale"}))
          .def_if(when("dataset.name", {"fashion-mnist"}), "/usr/share/datasets/fashion-mnist")
          .required_if(when("dataset.name", {"mnist", "images", "leaf", "fedscale"}))
          .fills(&Scenario::dataset, &DatasetSpec::path),
      path_key("dataset.file", PathKind::File, "The .npz archive (numpy.savez or numpy.savez_compressed).")
          .must_exist_only_when(real)
          .only_when(npz)
          .required_if(npz)
          .fills(&Scenario::dataset, &DatasetSpec::file),
      string_key("dataset.arrays.x_train", "npz: the training samples' array, uint8 or float32.")
          .only_when(npz)
          .def("x_train")
          .fills(&Scenario::dataset, &DatasetSpec::arrays, &DatasetArrays::x_train),
      string_key("dataset.arrays.y_train", "npz: the training labels' array, integers.")
          .only_when(npz)
          .def("y_train")
          .fills(&Scenario::dataset, &DatasetSpec::arrays, &DatasetArrays::y_train),
      string_key("dataset.arrays.x_test", "npz: the test samples' array, of the training samples' shape and dtype.")
          .only_when(npz)
          .def("x_test")
          .fills(&Scenario::dataset, &DatasetSpec::arrays, &DatasetArrays::x_test),
      string_key("dataset.arrays.y_test", "npz: the test labels' array, integers.")
          .only_when(npz)
          .def("y_test")
          .fills(&Scenario::dataset, &DatasetSpec::arrays, &DatasetArrays::y_test),
      string_key("dataset.arrays.users",
                 "npz: with partition natural, the array of each training sample's user (client id): integers or "
                 "strings, (N,) or (N, 1); users are numbered in the order they first appear.")
          .only_when(npz)
          .def("users_train")
          .fills(&Scenario::dataset, &DatasetSpec::arrays, &DatasetArrays::users),
      enum_key("dataset.layout", {"class", "user/class"},
               "images: class = train/<class>/ and test/<class>/ (torchvision's ImageFolder); user/class = "
               "train/<user>/<class>/ (and test/ alike): each training sample keeps its user, for partition natural.")
          .only_when(when("dataset.name", {"images"}))
          .def("class")
          .fills(&Scenario::dataset, &DatasetSpec::layout),
      enum_key("dataset.channels_at", {"first", "last"},
               "npz: where a 4-D array keeps its channels: first (N, C, H, W) or last (N, H, W, C). (N, H, W) "
               "arrays are one channel, (N, D) arrays 1x1xD.")
          .only_when(npz)
          .null_default("undeclared: a 4-D array is refused")
          .fills(&Scenario::dataset, &DatasetSpec::channels_at),
      integer_key("dataset.train_samples", "Training samples to use; 0 = the whole training set.")
          .at_least(0)
          .limit(1e8, kWhySamples)
          .def_if(synthetic, 2000)
          .def(0)
          .fills(&Scenario::dataset, &DatasetSpec::train_samples),
      null_if(int_list_key("dataset.shape",
                           "Sample shape [channels, height, width]; leaf: how each sample's list of values is read.")
                  .only_when(when("dataset.name", {"synthetic", "leaf"}))
                  .size(3)
                  .at_least(1)
                  .limit(65536, "and their product at most 2^24 (64 MiB of fp32 per sample)")
                  .or_null("a square single-channel image when the length is a perfect square, else 1x1xlength"),
              when("dataset.name", {"leaf"}))
          .def(json::array({1, 28, 28}))
          .fills(&Scenario::dataset, &DatasetSpec::shape),
      null_if(integer_key("dataset.classes", "Number of classes; labels must lie in 0 .. classes - 1.")
                  .only_when(when("dataset.name", {"synthetic", "npz", "leaf", "fedscale"}))
                  .at_least(2)
                  .at_most(1000)
                  .or_null("the largest label + 1"),
              when("dataset.name", {"npz", "leaf", "fedscale"}))
          .def(10)
          .fills(&Scenario::dataset, &DatasetSpec::classes),
      number_key("dataset.noise", "Spread of each class cluster around its centre.")
          .only_when(synthetic)
          .above(0)
          .def(1.0)
          .fills(&Scenario::dataset, &DatasetSpec::noise),
      enum_key("dataset.partition.kind", {"iid", "shards", "dirichlet", "natural"},
               "How training samples are split among devices; natural: the data set's own users (leaf, "
               "fedscale, npz with a users array, images with layout user/class), users_per_device of them per "
               "device.")
          .def("iid")
          .fills(&Scenario::dataset, &DatasetSpec::partition, &PartitionSpec::kind),
      integer_key("dataset.partition.labels_per_device", "Distinct labels each device holds.")
          .only_when(when("dataset.partition.kind", {"shards"}))
          .at_least(1)
          .limit(1000, "the largest number of classes")
          .def(2)
          .fills(&Scenario::dataset, &DatasetSpec::partition, &PartitionSpec::labels_per_device),
      number_key("dataset.partition.alpha", "Dirichlet concentration (smaller = more skewed).")
          .only_when(when("dataset.partition.kind", {"dirichlet"}))
          .above(0)
          .def(0.5)
          .fills(&Scenario::dataset, &DatasetSpec::partition, &PartitionSpec::alpha),
      integer_key("dataset.partition.users_per_device",
                  "natural: the data set's users each device gets (in file order, or shuffled); the users past "
                  "devices x users_per_device are not used.")
          .only_when(natural)
          .at_least(1)
          .limit(1e8, kWhySamples)
          .def(1)
          .fills(&Scenario::dataset, &DatasetSpec::partition, &PartitionSpec::users_per_device),
      boolean_key("dataset.partition.shuffle_users",
                  "natural: deal the users in an order shuffled with the run's seed rather than file order.")
          .only_when(natural)
          .def(false)
          .fills(&Scenario::dataset, &DatasetSpec::partition, &PartitionSpec::shuffle_users),
      integer_key("dataset.partition.parts",
                  "The parts the training set is split into (by kind, as for that many devices); device d holds "
                  "part d mod parts, so devices share parts when a fleet or population outgrows its data set (a "
                  "million devices on Fashion-MNIST's 60,000 samples). At most the number of devices.")
          .at_least(1)
          .limit(1e8, kWhySamples)
          .null_default("one part per device")
          .fills(&Scenario::dataset, &DatasetSpec::partition, &PartitionSpec::parts),
  };
}

std::vector<Rule> data_rules() {
  return {
      {"dataset.shape",
       "The product of the entries must be at most 2^24 = 16777216 values per sample (64 MiB of fp32).",
       [](const nlohmann::json& r) {
         const auto& ds = r.at("dataset");
         if (!ds.contains("shape") || !ds.at("shape").is_array()) return;  // not synthetic, or leaf's inferred
         int64_t values = 1;                 // each entry <= 65536: three of them fit int64
         for (const auto& e : ds.at("shape")) values *= e.get<int64_t>();
         if (values > kMaxSampleValues) {
           throw ScenarioError("dataset.shape: " + std::to_string(values) + " values per sample; at most " +
                               std::to_string(kMaxSampleValues) + " (2^24, 64 MiB of fp32) are allowed");
         }
       }},
      {"dataset.partition.kind",
       "natural needs a data set whose samples carry users: dataset.name leaf, fedscale, npz (its users array) or "
       "images with dataset.layout user/class.",
       [](const nlohmann::json& r) {
         const auto& ds = r.at("dataset");
         if (ds.at("partition").at("kind") != "natural") return;
         const auto& name = ds.at("name");
         if (name == "leaf" || name == "fedscale" || name == "npz") return;
         if (name == "images") {
           if (ds.at("layout") == "user/class") return;
           throw ScenarioError(
               "dataset.partition.kind: natural on an image folder needs dataset.layout user/class "
               "(train/<user>/<class>/): with a folder per class the samples carry no users");
         }
         throw ScenarioError(
             "dataset.partition.kind: natural needs a data set whose samples carry users "
             "(dataset.name leaf, fedscale, npz or images), not " +
             (name.is_string() ? name.get<std::string>() : std::string("none")));
       }},
  };
}

}  // namespace edgetrain::scenario::keys
