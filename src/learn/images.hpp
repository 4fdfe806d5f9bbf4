// Image folders, a folder per class (torchvision's ImageFolder layout): `dir`/train/<class>/*.png
// and `dir`/test/<class>/*.png; or a folder per user holding its class folders,
// `dir`/train/<user>/<class>/*.png (the user's own split, for the natural partition). Classes are the
// training class folders' names in name order; pixels are kept as one-byte codes, as IDX images are.
// No LibTorch.
#pragma once

#include <cstdint>
#include <filesystem>

#include "learn/dataset.hpp"

namespace edgetrain::learn {

struct ImageFolderSpec {
  std::filesystem::path dir;
  bool user_folders = false;  // train/<user>/<class>/ (and test/ alike): each training sample keeps its user
  int64_t train_limit = 0, test_limit = 0;  // 0 = all
};

// Samples are taken round-robin over the classes (each class's files in name order), so that a
// limit keeps the classes balanced; with user folders, users in name order, each user's samples
// round-robin over its classes (users are numbered in name order). Every image has the first training image's size; its
// channels (grey: 1, colour: 3) decide the data set's.
DatasetPair load_image_folder(const ImageFolderSpec& spec);
// From the file listing and the first training image's header.
DatasetShape image_folder_shape(const ImageFolderSpec& spec);

}  // namespace edgetrain::learn
