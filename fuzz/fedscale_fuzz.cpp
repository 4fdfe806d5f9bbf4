// Fuzz target: FedScale's client_data_mapping CSV (dataset.name fedscale: learn::fedscale_dataset_shape,
// then load_fedscale_dataset): the input is train.csv, beside a fixed test.csv and a 2x2 PNG every row
// may name. A mapping may be refused with DataError; an accepted one has a user and a label in range
// per sample.
// fuzz.sh: -max_len=8192
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "input_file.hpp"
#include "learn/fedscale.hpp"

using namespace edgetrain::learn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string png("\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x02\x00\x00\x00\x02\x08\x00\x00\x00\x00\x57\xdd\x52\xf8\x00\x00\x00\x0e\x49\x44\x41\x54\x78\x9c\x63\x60\x68\x60\x70\x38\x00\x00\x03\x46\x01\x81\x9b\x58\xdf\xaa\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82", 71);
  static const std::string test = "client_id,sample_path,label_name,label_id\n1,a.png,cat,1\n";
  const auto bytes = [](const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); };
  const auto csv = fuzz::write_input("fedscale/client_data_mapping/train.csv", data, size);
  fuzz::write_input("fedscale/client_data_mapping/test.csv", bytes(test), test.size());
  fuzz::write_input("fedscale/train/a.png", bytes(png), png.size());
  fuzz::write_input("fedscale/test/a.png", bytes(png), png.size());
  FedScaleSpec spec;
  spec.dir = csv.parent_path().parent_path();
  spec.train_limit = spec.test_limit = 64;
  try {
    const DatasetShape shape = fedscale_dataset_shape(spec);
    if (shape.classes < 2 || shape.classes > kMaxClasses) std::abort();
    const DatasetPair pair = load_fedscale_dataset(spec);
    if (pair.train.sample_users.size() != pair.train.labels.size()) std::abort();
    for (int64_t l : pair.train.labels)
      if (l < 0 || l >= pair.train.classes) std::abort();
  } catch (const DataError&) {
  }
  return 0;
}
