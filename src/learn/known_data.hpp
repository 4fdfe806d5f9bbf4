// What a run's data set holds, known from the scenario alone, without reading a file: timing-only
// runs take their sample counts (for streams and partitions) and sample shape from here. No
// LibTorch.
#pragma once

#include <cstdint>
#include <string>

#include <vector>

#include "learn/dataset.hpp"

namespace edgetrain::learn {

// What a scenario says of its data: the data set's name (empty: none), the counts it caps, the
// synthetic data's shape and classes, and the model (a catalogue model brings its own input).
struct DataRequest {
  std::string dataset;            // fashion-mnist | mnist | synthetic | empty
  int64_t train_samples = 0;      // 0 = all
  int64_t test_samples = 10000;
  std::vector<int64_t> shape{1, 28, 28};  // synthetic
  int64_t classes = 10;                   // synthetic
  std::string model;
};

struct KnownData {
  DatasetShape shape;            // sample counts, sample shape, classes
  int64_t raw_sample_bytes = 0;  // one stored sample, as Dataset::raw_sample_bytes
  std::string source;            // where the figures come from, for messages and summaries
};

// fashion-mnist and mnist: 60,000 training and 10,000 test samples of 1x28x28, 10 classes (the
// published files); synthetic: its keys. dataset.train_samples and eval.test_samples cap the
// counts as they cap what a real run loads. Without a data set (timing-only), the counts of the
// catalogue model's reference data set (model.name), else fashion-mnist's. With a catalogue
// model, the sample shape, classes and raw size are the model's input whatever the data set.
KnownData known_dataset_shape(const DataRequest& request);
// The user's files (npz, images, leaf, fedscale): what their headers and counts say (`shape`), with
// the catalogue model `model`'s input overriding the sample shape as above.
KnownData known_from_headers(const DatasetShape& shape, const std::string& source, const std::string& model);

}  // namespace edgetrain::learn
