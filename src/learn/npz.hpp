// NumPy .npz archives (numpy.savez, stored, or numpy.savez_compressed, deflated): a zip file of
// .npy arrays, read with zlib. x arrays are uint8 (kept as one-byte codes, as IDX pixels) or
// float32; an (N, H, W) array is one channel, a 4-D array's channel axis is declared; y arrays are
// integers of any width. A users array (integers, or NumPy unicode strings) gives each training sample
// its client, for the natural partition. No LibTorch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "learn/dataset.hpp"

namespace edgetrain::learn {

struct NpzSpec {
  std::filesystem::path file;
  std::string x_train = "x_train", y_train = "y_train", x_test = "x_test", y_test = "y_test";
  std::string channels_at;  // 4-D x arrays: "first" (N, C, H, W) or "last" (N, H, W, C); empty: undeclared
  // The array of each training sample's user (client id), read only when given; empty: no users.
  std::string users;
  int64_t classes = 0;      // 0: the largest label + 1
  int64_t train_limit = 0, test_limit = 0;  // 0 = all
};

// Reads the four arrays (and the users array): every header is checked before data is kept (dtype,
// dimensions, x, y and users counts equal, train and test samples of one shape), each array's length
// against its header. Users are numbered in the order they first appear.
DatasetPair load_npz_dataset(const NpzSpec& spec);
// From the arrays' headers only.
DatasetShape npz_dataset_shape(const NpzSpec& spec);

}  // namespace edgetrain::learn
