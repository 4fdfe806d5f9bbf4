// IDX reading (gzipped and raw, written here byte by byte), error messages for broken
// files, the real Fashion-MNIST files when installed, and the synthetic generator.
#include "learn/dataset.hpp"

#include <doctest/doctest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace edgetrain::learn;
namespace fs = std::filesystem;

namespace {

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

void write_raw(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

void write_gz(const fs::path& p, const std::string& bytes) {
  gzFile f = gzopen(p.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
}

// Three 2x2 images with pixel values i*10+j and labels 0, 1, 2.
fs::path make_idx_dir(const std::string& name, bool gz) {
  const fs::path dir = fs::temp_directory_path() / ("edgetrain-idx-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string images = be32(0x803) + be32(3) + be32(2) + be32(2), labels = be32(0x801) + be32(3);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) images += static_cast<char>(i * 10 + j);
    labels += static_cast<char>(i);
  }
  for (const std::string prefix : {"train", "t10k"}) {
    auto write = gz ? write_gz : write_raw;
    write(dir / (prefix + "-images-idx3-ubyte" + (gz ? ".gz" : "")), images);
    write(dir / (prefix + "-labels-idx1-ubyte" + (gz ? ".gz" : "")), labels);
  }
  return dir;
}

}  // namespace

TEST_CASE("IDX files are read gzipped or not, with identical results") {
  const DatasetPair a = load_idx_dataset(make_idx_dir("gz", true), 0, 0);
  const DatasetPair b = load_idx_dataset(make_idx_dir("raw", false), 0, 0);
  CHECK(a.train.size() == 3);
  CHECK(a.train.height == 2);
  CHECK(a.train.labels == std::vector<int64_t>{0, 1, 2});
  CHECK(a.train.features == b.train.features);
  // standardised with the training set's statistics: mean 0
  double sum = 0;
  for (float v : a.train.features) sum += v;
  CHECK(sum == doctest::Approx(0.0).scale(1.0));
  CHECK(a.train.features[1] > a.train.features[0]);
}

TEST_CASE("limits keep the first samples") {
  const DatasetPair d = load_idx_dataset(make_idx_dir("limit", true), 2, 1);
  CHECK(d.train.size() == 2);
  CHECK(d.test.size() == 1);
}

TEST_CASE("broken IDX inputs give a DataError naming the file") {
  const fs::path dir = make_idx_dir("broken", false);
  write_raw(dir / "train-labels-idx1-ubyte", be32(0x801) + be32(3) + "\x01");  // 1 of 3 labels
  CHECK_THROWS_WITH_AS(load_idx_dataset(dir, 0, 0), doctest::Contains("train-labels-idx1-ubyte is truncated"),
                       DataError);
  write_raw(dir / "train-labels-idx1-ubyte", be32(0x999) + be32(3));
  CHECK_THROWS_WITH_AS(load_idx_dataset(dir, 0, 0), doctest::Contains("IDX magic"), DataError);
  fs::remove(dir / "train-labels-idx1-ubyte");
  CHECK_THROWS_WITH_AS(load_idx_dataset(dir, 0, 0), doctest::Contains("train-labels-idx1-ubyte[.gz] not found"),
                       DataError);
  CHECK_THROWS_AS(load_idx_dataset(dir / "nowhere", 0, 0), DataError);
}

TEST_CASE("Debian's Fashion-MNIST files load") {
  const fs::path dir = "/usr/share/datasets/fashion-mnist";
  if (!fs::exists(dir)) return;  // tools/test.sh installs dataset-fashion-mnist
  const DatasetPair d = load_idx_dataset(dir, 1000, 500);
  CHECK(d.train.size() == 1000);
  CHECK(d.test.size() == 500);
  CHECK(d.train.sample_size() == 784);
  CHECK(d.train.classes == 10);
  CHECK(d.train.labels[0] == 9);  // the first training image is an ankle boot
}

TEST_CASE("synthetic data is seeded and balanced") {
  SyntheticSpec s;
  s.train_samples = 100;
  s.test_samples = 20;
  const DatasetPair a = make_synthetic_dataset(s), b = make_synthetic_dataset(s);
  CHECK(a.train.features == b.train.features);
  s.seed = 2;
  CHECK(make_synthetic_dataset(s).train.features != a.train.features);
  for (int c = 0; c < 10; ++c) CHECK(std::count(a.train.labels.begin(), a.train.labels.end(), c) == 10);
  CHECK(a.train.features.size() == 100 * 784);
}
