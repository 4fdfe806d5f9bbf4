// LEAF data sets (FEMNIST, Synthetic, ... from the LEAF benchmark's preprocessing): JSON files
// {"users": [...], "num_samples": [...], "user_data": {user: {"x": [...], "y": [...]}}} in the
// folders train/ and test/, read in file-name order with a streaming (SAX) parser, so no file is
// held whole. x samples are lists of numbers (kept as fp32) and y integers, or x strings and y
// single characters (Shakespeare: each character's index in LEAF's 80-letter alphabet, kept as a
// token, 80 classes); the training samples keep their users. Other x (CelebA's file names, Sent140's
// word lists) is refused. No LibTorch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "learn/dataset.hpp"

namespace edgetrain::learn {

struct LeafSpec {
  std::filesystem::path dir;
  // [channels, height, width] of a sample; empty: a square single-channel image when the length is
  // a perfect square (FEMNIST's 784 values: 1x28x28), else 1x1xlength.
  std::vector<int64_t> shape;
  int64_t classes = 0;                      // 0: the largest label + 1
  int64_t train_limit = 0, test_limit = 0;  // 0 = all
};

DatasetPair load_leaf_dataset(const LeafSpec& spec);
// From each file's "users" and "num_samples" and the first sample's length; when spec.classes is
// 0 the files are read to their end for their labels (values are not kept).
DatasetShape leaf_dataset_shape(const LeafSpec& spec);

}  // namespace edgetrain::learn
