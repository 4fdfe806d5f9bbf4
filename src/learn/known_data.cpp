// See known_data.hpp.
#include "learn/known_data.hpp"

#include <algorithm>

#include "learn/catalogue.hpp"

namespace edgetrain::learn {
namespace {

// The published IDX files of both data sets (train-*/t10k-*).
constexpr int64_t kIdxTrain = 60000, kIdxTest = 10000, kIdxSide = 28, kIdxClasses = 10;

DatasetShape shape_of(int64_t train, int64_t test, int64_t channels, int64_t height, int64_t width, int64_t classes) {
  DatasetShape s;
  s.train_samples = train;
  s.test_samples = test;
  s.channels = channels;
  s.height = height;
  s.width = width;
  s.classes = classes;
  return s;
}

// `limit` samples of `available` (0 = all), as load_idx_dataset keeps them.
int64_t capped(int64_t available, int64_t limit) { return limit > 0 ? std::min(available, limit) : available; }

KnownData idx(const std::string& name, int64_t train_limit, int64_t test_limit) {
  KnownData k;
  k.shape = shape_of(capped(kIdxTrain, train_limit), capped(kIdxTest, test_limit), 1, kIdxSide, kIdxSide, kIdxClasses);
  k.raw_sample_bytes = kIdxSide * kIdxSide;  // uint8 pixels
  k.source = name + " (published size: 60000 training and 10000 test samples of 1x28x28, 10 classes)";
  return k;
}

}  // namespace

namespace {
void take_model_input(KnownData& k, const CatalogueModel* model) {
  if (!model) return;
  const CatalogueInput& in = model->input;
  k.shape.channels = in.channels;
  k.shape.height = in.height;
  k.shape.width = in.width;
  k.shape.classes = in.classes;
  k.raw_sample_bytes = in.raw_sample_bytes;
}
}  // namespace

KnownData known_from_headers(const DatasetShape& shape, const std::string& source, const std::string& model) {
  KnownData k;
  k.shape = shape;
  k.raw_sample_bytes = shape.sample_floats() * shape.value_bytes;
  k.source = source;
  take_model_input(k, find_model(model));
  return k;
}

KnownData known_dataset_shape(const DataRequest& d) {
  const CatalogueModel* model = find_model(d.model);
  KnownData k;
  if (d.dataset == "synthetic") {
    k.shape = shape_of(d.train_samples, d.test_samples, d.shape.at(0), d.shape.at(1), d.shape.at(2), d.classes);
    k.raw_sample_bytes = k.shape.sample_floats() * static_cast<int64_t>(sizeof(float));
    k.source = "synthetic (dataset.train_samples, dataset.shape, dataset.classes)";
  } else if (!d.dataset.empty()) {
    k = idx(d.dataset, d.train_samples, d.test_samples);
  } else if (model) {
    const CatalogueInput& in = model->input;
    k.shape.train_samples = capped(in.train_samples, d.train_samples);
    k.shape.test_samples = capped(in.test_samples, d.test_samples);
    k.source = in.dataset + " (reference data set of " + model->name + ")";
  } else {
    k = idx("fashion-mnist", 0, 0);
    k.source = "no data set: " + k.source + ", the input mlp and cnn default to";
  }
  take_model_input(k, model);
  return k;
}

}  // namespace edgetrain::learn
