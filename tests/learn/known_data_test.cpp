// The data set sizes known without reading files (timing-only runs) against what reading the
// files or generating the data gives.
#include "learn/known_data.hpp"

#include <doctest/doctest.h>

#include <filesystem>

using namespace edgetrain;
using learn::known_dataset_shape;

namespace {

learn::DataRequest with_data(const std::string& name, int64_t train_samples, int64_t test_samples) {
  learn::DataRequest r;
  r.dataset = name;
  r.train_samples = train_samples;
  r.test_samples = test_samples;
  return r;
}

bool same(const learn::DatasetShape& a, const learn::DatasetShape& b) {
  return a.train_samples == b.train_samples && a.test_samples == b.test_samples && a.channels == b.channels &&
         a.height == b.height && a.width == b.width && a.classes == b.classes;
}

}  // namespace

TEST_CASE("known data: fashion-mnist as its files say, capped as a real run loads it") {
  const learn::KnownData all = known_dataset_shape(with_data("fashion-mnist", 0, 10000));
  CHECK(all.shape.train_samples == 60000);
  CHECK(all.shape.test_samples == 10000);
  CHECK(all.shape.sample_floats() == 784);
  CHECK(all.shape.classes == 10);
  CHECK(all.raw_sample_bytes == 784);
  CHECK(known_dataset_shape(with_data("mnist", 0, 10000)).shape.train_samples == 60000);
  const std::filesystem::path dir = "/usr/share/datasets/fashion-mnist";
  if (!std::filesystem::exists(dir)) return;  // tools/test.sh installs dataset-fashion-mnist
  for (auto [train, test] : {std::pair<int64_t, int64_t>{0, 10000}, {1000, 500}, {70000, 20000}}) {
    CAPTURE(train);
    CAPTURE(test);
    CHECK(same(known_dataset_shape(with_data("fashion-mnist", train, test)).shape,
               learn::idx_dataset_shape(dir, train, test)));
  }
}

TEST_CASE("known data: synthetic from its keys, as generated") {
  learn::DataRequest s = with_data("synthetic", 40, 12);
  s.shape = {3, 4, 5};
  s.classes = 7;
  const learn::KnownData k = known_dataset_shape(s);
  learn::SyntheticSpec spec;
  spec.channels = 3, spec.height = 4, spec.width = 5, spec.classes = 7;
  spec.train_samples = 40, spec.test_samples = 12;
  const learn::DatasetPair generated = learn::make_synthetic_dataset(spec);
  CHECK(same(k.shape, learn::shape_of(generated)));
  CHECK(k.raw_sample_bytes == generated.train.raw_sample_bytes);
}

TEST_CASE("known data: catalogue models bring their input and, without a data set, their reference sizes") {
  learn::DataRequest s = with_data("", 0, 10000);
  s.model = "resnet50";
  learn::KnownData k = known_dataset_shape(s);
  CHECK(k.shape.train_samples == 1281167);  // ImageNet-1k
  CHECK(k.shape.test_samples == 10000);     // capped by eval.test_samples, as a real run would
  CHECK(k.shape.channels == 3);
  CHECK(k.shape.height == 224);
  CHECK(k.shape.classes == 1000);
  CHECK(k.raw_sample_bytes == 3 * 224 * 224);
  CHECK(k.source.find("ImageNet") != std::string::npos);
  s.train_samples = 5000;
  CHECK(known_dataset_shape(s).shape.train_samples == 5000);
  // A data set given: its sample counts, the model's input.
  s = with_data("fashion-mnist", 0, 10000);
  s.model = "bert-base";
  k = known_dataset_shape(s);
  CHECK(k.shape.train_samples == 60000);
  CHECK(k.shape.sample_floats() == 128);
  CHECK(k.shape.classes == 2);
  CHECK(k.raw_sample_bytes == 128 * 4);
  // No data set and a model of the zoo: fashion-mnist's sizes, the input mlp and cnn default to.
  s = with_data("", 0, 10000);
  k = known_dataset_shape(s);
  CHECK(same(k.shape, known_dataset_shape(with_data("fashion-mnist", 0, 10000)).shape));
}
