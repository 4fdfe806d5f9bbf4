// FedScale data sets: `dir`/client_data_mapping/{train,test}.csv, with the columns client_id,
// sample_path, label_name and label_id (in any order, named by the header line), and the sample
// files they name, relative to `dir`/train/ and `dir`/test/ (FedScale's own layout), decoded as
// images (image_file.hpp). Clients are the training samples' users. No LibTorch.
#pragma once

#include <cstdint>
#include <filesystem>

#include "learn/dataset.hpp"

namespace edgetrain::learn {

struct FedScaleSpec {
  std::filesystem::path dir;
  int64_t classes = 0;                      // 0: the largest label_id + 1
  int64_t train_limit = 0, test_limit = 0;  // 0 = all: the first rows of each file
};

// Samples in the rows' order; users numbered by each client's first row.
DatasetPair load_fedscale_dataset(const FedScaleSpec& spec);
// From the two CSV files and the first training sample's image header.
DatasetShape fedscale_dataset_shape(const FedScaleSpec& spec);

}  // namespace edgetrain::learn
