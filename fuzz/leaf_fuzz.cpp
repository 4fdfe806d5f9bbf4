// Fuzz target: LEAF JSON files (dataset.name leaf: learn::leaf_dataset_shape, then load_leaf_dataset):
// the input is the training split's one file, beside a fixed valid test file. A file may be refused
// with DataError; an accepted one must have labels within its classes and a user per sample.
// fuzz.sh: -max_len=16384
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "input_file.hpp"
#include "learn/leaf.hpp"

using namespace edgetrain::learn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string test =
      R"({"users": ["t"], "num_samples": [2], "user_data": {"t": {"x": [[1, 2, 3, 4], [5, 6, 7, 8]], "y": [0, 1]}}})";
  const auto file = fuzz::write_input("leaf/train/a.json", data, size);
  fuzz::write_input("leaf/test/t.json", reinterpret_cast<const uint8_t*>(test.data()), test.size());
  LeafSpec spec;
  spec.dir = file.parent_path().parent_path();
  spec.train_limit = spec.test_limit = 256;
  try {
    const DatasetShape shape = leaf_dataset_shape(spec);
    if (shape.classes < 2 || shape.classes > kMaxClasses) std::abort();
    const DatasetPair pair = load_leaf_dataset(spec);
    if (pair.train.sample_users.size() != pair.train.labels.size()) std::abort();
    for (int64_t l : pair.train.labels)
      if (l < 0 || l >= pair.train.classes) std::abort();
  } catch (const DataError&) {
  }
  return 0;
}
