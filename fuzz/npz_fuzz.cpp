// Fuzz target: npz archives (dataset.name npz: learn::npz_dataset_shape, then load_npz_dataset with
// small limits): the zip reader, the .npy headers and the arrays. An archive may be refused with
// DataError; an accepted one must have as many labels as samples, all within its classes.
// fuzz.sh: -max_len=65536
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "input_file.hpp"
#include "learn/npz.hpp"

using namespace edgetrain::learn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  NpzSpec spec;
  spec.file = fuzz::write_input("data.npz", data, size);
  spec.train_limit = spec.test_limit = 64;
  try {
    const DatasetShape shape = npz_dataset_shape(spec);
    if (shape.classes < 2 || shape.classes > kMaxClasses || shape.sample_floats() <= 0) std::abort();
    const DatasetPair pair = load_npz_dataset(spec);
    for (const Dataset* d : {&pair.train, &pair.test}) {
      if (static_cast<int64_t>(d->labels.size()) != d->size()) std::abort();
      for (int64_t l : d->labels)
        if (l < 0 || l >= d->classes) std::abort();
    }
  } catch (const DataError&) {
  }
  return 0;
}
