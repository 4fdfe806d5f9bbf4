// Datasets held in memory as normalised values (one-byte codes for IDX images, fp32 for
// synthetic data) and integer labels. Reads the IDX
// files of MNIST and Fashion-MNIST (gzipped or not, through zlib) and generates a seeded
// synthetic classification set for fast tests. No LibTorch here: tensors are made later.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/input_error.hpp"

namespace edgetrain::learn {

// Bad or missing data files: the message names the file and what is wrong with it.
class DataError : public std::runtime_error, public util::InputError {
 public:
  using std::runtime_error::runtime_error;
};

// `file`, once checked to be a regular file of at most util::kDataFileInput's bound (DataError naming it
// otherwise): a FIFO or a device would block the reader's open() or never end its read.
const std::filesystem::path& regular_data_file(const std::filesystem::path& file);

// The most classes a data set has (dataset.classes' bound): a label read from a file lies in
// 0 .. kMaxClasses - 1, so that inferring the classes from the largest label stays within the key's range.
inline constexpr int64_t kMaxClasses = 1000;
// The classes the largest label `top` implies (top + 1), refused (DataError naming `where`) past kMaxClasses.
int64_t classes_of_top_label(int64_t top, const std::string& where);

struct Dataset {
  int64_t channels = 1, height = 28, width = 28;
  int64_t classes = 10;
  // The values, size() * sample_size() of them, row-major, normalised: IDX images keep their
  // pixels as codes (one byte each, a quarter of fp32) with the value of each of the 256 codes;
  // synthetic data keeps fp32 features. values() and copy_sample() read either.
  std::vector<float> features;
  std::vector<uint8_t> codes;
  std::array<float, 256> code_values{};
  std::vector<int64_t> labels;

  int64_t size() const { return static_cast<int64_t>(labels.size()); }
  int64_t sample_size() const { return channels * height * width; }
  // Sample `index`'s sample_size() values into `out`.
  void copy_sample(int64_t index, float* out) const;
  // Every value, in order (small sets: tests).
  std::vector<float> values() const;
  // Bytes one raw sample occupies on the device (uint8 pixels as stored in IDX, or fp32 for
  // synthetic data); used to report buffer memory.
  int64_t raw_sample_bytes = 784;
  // Data sets that carry users (leaf, fedscale): each sample's user, numbered 0.. in the order users
  // first appear in the files; empty when the data set has none.
  std::vector<int64_t> sample_users;
  // Values that are token indices (LEAF's text: each character's index in its alphabet): kept as
  // read, never standardised, for a model that embeds them (its forward casts them to integers).
  bool tokens = false;
};

// The samples `indices` of `data` (repeats allowed), in that order, without their users.
Dataset subset(const Dataset& data, const std::vector<int64_t>& indices);

struct DatasetPair {
  Dataset train, test;
};

// Reads train-*/t10k-* IDX files from `dir`, keeping the first `train_limit` training samples
// (0 = all) and the first `test_limit` test samples (0 = all). Features are scaled to [0,1]
// and standardised with the training set's mean and standard deviation. Every header is checked
// before data is kept (magic, dimensions > 0, image and label counts equal, train and test images
// of one size), each file's data length against its header, and labels against the ten classes.
DatasetPair load_idx_dataset(const std::filesystem::path& dir, int64_t train_limit, int64_t test_limit);

// What a dataset will hold, known before loading it (for the memory estimate).
struct DatasetShape {
  int64_t train_samples = 0, test_samples = 0;
  int64_t channels = 1, height = 28, width = 28;
  int64_t classes = 10;
  int64_t sample_floats() const { return channels * height * width; }
  // Bytes each value is kept in: 1 for uint8 pixels (codes), 4 for fp32 values.
  int64_t value_bytes = 1;
  // What reading holds besides the kept values, at its peak (the raw bytes of a file or an array
  // read whole, a JSON document): for the memory estimate.
  double read_bytes = 0;
  // Data sets with users: the training samples of each user, in user order (empty: no users).
  std::vector<int64_t> user_samples;
};

// The last steps every file format shares: labels checked against the classes (`classes` > 0:
// declared; 0: the largest label + 1 of both splits, at least 2), `where_train` and `where_test`
// naming the label files for messages; then standardise().
void finish_dataset(DatasetPair& pair, int64_t classes, const std::string& where_train,
                    const std::string& where_test);
// Standardises both splits with the training set's mean and standard deviation (computed in
// double, in a fixed order): uint8 codes are scaled to [0, 1] first (p / 255), each of the 256
// codes getting the value its pixels would; fp32 features are standardised as given; tokens are
// left as they are.
void standardise(DatasetPair& pair);
DatasetShape shape_of(const DatasetPair& data);
// Each user's sample count, in user order, from each sample's user (DatasetShape::user_samples).
std::vector<int64_t> user_counts(const std::vector<int64_t>& sample_users);
// From the IDX headers and file sizes only (headers checked as load_idx_dataset does).
DatasetShape idx_dataset_shape(const std::filesystem::path& dir, int64_t train_limit, int64_t test_limit);

struct SyntheticSpec {
  int64_t channels = 1, height = 28, width = 28, classes = 10;
  int64_t train_samples = 2000, test_samples = 1000;
  double noise = 1.0;
  uint64_t seed = 1;
};

// Gaussian clusters, one centre per class: learnable but not trivially separable.
DatasetPair make_synthetic_dataset(const SyntheticSpec& spec);
DatasetShape synthetic_shape(const SyntheticSpec& spec);

}  // namespace edgetrain::learn
