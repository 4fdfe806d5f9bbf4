// See data.hpp.
#include "scenario/keys/data.hpp"

#include <cstdint>

#include "scenario/error.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {
namespace {

constexpr int64_t kMaxSampleValues = int64_t{1} << 24;  // dataset.shape's product

}  // namespace

std::vector<KeySpec> data_rows() {
  using nlohmann::json;
  const Condition real = when("training.compute", {"real"});
  const Condition synthetic = when("dataset.name", {"synthetic"});
  return {
      enum_key("dataset.name", {"fashion-mnist", "mnist", "synthetic"},
               "Training data: IDX files (fashion-mnist, mnist) or generated class clusters. Timing-only runs "
               "read nothing: they take the data set's known size (fashion-mnist and mnist: 60000 training and "
               "10000 test samples of 1x28x28, 10 classes; synthetic: its keys); without one, the sizes of the "
               "catalogue model's reference data set, else fashion-mnist's.")
          .required_if(real)
          .null_default("no data set (timing-only runs only)")
          .fills(&Scenario::dataset, &DatasetSpec::name),
      path_key("dataset.path", PathKind::Directory, "Folder holding the IDX files (gzipped or not).")
          .must_exist_only_when(real)
          .only_when(when("dataset.name", {"fashion-mnist", "mnist"}))
          .def_if(when("dataset.name", {"fashion-mnist"}), "/usr/share/datasets/fashion-mnist")
          .required_if(when("dataset.name", {"mnist"}))
          .fills(&Scenario::dataset, &DatasetSpec::path),
      integer_key("dataset.train_samples", "Training samples to use; 0 = the whole training set.")
          .at_least(0)
          .limit(1e8, kWhySamples)
          .def_if(synthetic, 2000)
          .def(0)
          .fills(&Scenario::dataset, &DatasetSpec::train_samples),
      int_list_key("dataset.shape", "Sample shape [channels, height, width].")
          .only_when(synthetic)
          .size(3)
          .at_least(1)
          .limit(65536, "and their product at most 2^24 (64 MiB of fp32 per sample)")
          .def(json::array({1, 28, 28}))
          .fills(&Scenario::dataset, &DatasetSpec::shape),
      integer_key("dataset.classes", "Number of classes.")
          .only_when(synthetic)
          .at_least(2)
          .at_most(1000)
          .def(10)
          .fills(&Scenario::dataset, &DatasetSpec::classes),
      number_key("dataset.noise", "Spread of each class cluster around its centre.")
          .only_when(synthetic)
          .above(0)
          .def(1.0)
          .fills(&Scenario::dataset, &DatasetSpec::noise),
      enum_key("dataset.partition.kind", {"iid", "shards", "dirichlet"},
               "How training samples are split among devices.")
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
  };
}

std::vector<Rule> data_rules() {
  return {
      {"dataset.shape",
       "The product of the entries must be at most 2^24 = 16777216 values per sample (64 MiB of fp32).",
       [](const nlohmann::json& r) {
         const auto& ds = r.at("dataset");
         if (!ds.contains("shape")) return;  // not synthetic
         int64_t values = 1;                 // each entry <= 65536: three of them fit int64
         for (const auto& e : ds.at("shape")) values *= e.get<int64_t>();
         if (values > kMaxSampleValues) {
           throw ScenarioError("dataset.shape: " + std::to_string(values) + " values per sample; at most " +
                               std::to_string(kMaxSampleValues) + " (2^24, 64 MiB of fp32) are allowed");
         }
       }},
  };
}

}  // namespace edgetrain::scenario::keys
