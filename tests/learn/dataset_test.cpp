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
  CHECK(a.train.values() == b.train.values());
  CHECK(a.train.features.empty());  // kept as one-byte codes
  CHECK(a.train.codes.size() == 3 * 2 * 2);
  // standardised with the training set's statistics: mean 0
  double sum = 0;
  for (float v : a.train.values()) sum += v;
  CHECK(sum == doctest::Approx(0.0).scale(1.0));
  CHECK(a.train.values()[1] > a.train.values()[0]);
}

TEST_CASE("a gzipped IDX file of two members (cat a.gz b.gz) reads as one, as gunzip does") {
  // libdeflate decompresses a single member at once; two members go to zlib's stream, with the same result.
  const fs::path dir = make_idx_dir("members", true);
  const fs::path images = dir / "train-images-idx3-ubyte.gz";
  std::string whole = be32(0x803) + be32(3) + be32(2) + be32(2);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) whole += static_cast<char>(i * 10 + j);
  write_gz(dir / "first.gz", whole.substr(0, 10));
  write_gz(dir / "rest.gz", whole.substr(10));
  std::ofstream(images, std::ios::binary) << std::ifstream(dir / "first.gz", std::ios::binary).rdbuf()
                                          << std::ifstream(dir / "rest.gz", std::ios::binary).rdbuf();
  fs::remove(dir / "first.gz");
  fs::remove(dir / "rest.gz");
  const DatasetPair split = load_idx_dataset(dir, 0, 0);
  const DatasetPair one = load_idx_dataset(make_idx_dir("one-member", true), 0, 0);
  CHECK(split.train.codes == one.train.codes);
  CHECK(split.train.labels == one.train.labels);
}

TEST_CASE("limits keep the first samples") {
  const DatasetPair d = load_idx_dataset(make_idx_dir("limit", true), 2, 1);
  CHECK(d.train.size() == 2);
  CHECK(d.test.size() == 1);
}

TEST_CASE("broken IDX inputs give a DataError naming the file") {
  const fs::path dir = make_idx_dir("broken", false);
  write_raw(dir / "train-labels-idx1-ubyte", be32(0x801) + be32(3) + "\x01");  // 1 of 3 labels
  CHECK_THROWS_WITH_AS(load_idx_dataset(dir, 0, 0),
                       doctest::Contains("train-labels-idx1-ubyte holds 1 bytes of data, but its header (3) claims 3"),
                       DataError);
  write_raw(dir / "train-labels-idx1-ubyte", be32(0x999) + be32(3));
  CHECK_THROWS_WITH_AS(load_idx_dataset(dir, 0, 0), doctest::Contains("IDX magic 0x999, expected 0x801"), DataError);
  fs::remove(dir / "train-labels-idx1-ubyte");
  CHECK_THROWS_WITH_AS(load_idx_dataset(dir, 0, 0), doctest::Contains("train-labels-idx1-ubyte[.gz] not found"),
                       DataError);
  CHECK_THROWS_AS(load_idx_dataset(dir / "nowhere", 0, 0), DataError);
}

namespace {

// A fresh copy of the good 3-image folder with `file` replaced by `bytes` (and `other` by
// `other_bytes`, if given), gzipped or not; the DataError must name `file` and say `what`.
// Checked with and without a limit, and for the shape read without loading (the memory
// estimate's) where the headers alone are wrong.
void check_broken(const std::string& name, const std::string& file, const std::string& bytes, const std::string& what,
                  bool header_error, const std::string& other = "", const std::string& other_bytes = "") {
  for (bool gz : {false, true}) {
    CAPTURE(gz);
    const fs::path dir = make_idx_dir(name + (gz ? "-gz" : "-raw"), gz);
    const std::string ext = gz ? ".gz" : "";
    const fs::path path = dir / (file + ext);
    (gz ? write_gz : write_raw)(path, bytes);
    if (!other.empty()) (gz ? write_gz : write_raw)(dir / (other + ext), other_bytes);
    const std::string expected = path.string() + " " + what;
    for (int64_t limit : {0, 1}) {
      CAPTURE(limit);
      CHECK_THROWS_WITH_AS(load_idx_dataset(dir, limit, limit), doctest::Contains(expected.c_str()), DataError);
    }
    if (header_error) CHECK_THROWS_AS(idx_dataset_shape(dir, 0, 0), DataError);
  }
}

std::string images(uint32_t count, uint32_t rows, uint32_t cols, size_t pixels) {
  return be32(0x803) + be32(count) + be32(rows) + be32(cols) + std::string(pixels, '\x07');
}

}  // namespace

TEST_CASE("IDX headers are checked against the data before anything is allocated") {
  // 2^32 - 1 images and labels claimed, twelve bytes of pixels present: refused, not allocated
  // (no out-of-memory abort).
  check_broken("huge-count", "train-images-idx3-ubyte", images(0xffffffff, 2, 2, 12),
               "holds 12 bytes of data, but its header (4294967295x2x2) claims 4294967295 items of 4 bytes", false,
               "train-labels-idx1-ubyte", be32(0x801) + be32(0xffffffff) + std::string(3, '\x01'));
  // Each dimension at its maximum: 2^96 bytes claimed, computed without overflow.
  // (test images of the same size: sizes are compared before any data is read)
  check_broken("huge-dims", "train-images-idx3-ubyte", images(3, 0xffffffff, 0xffffffff, 12),
               "holds 12 bytes of data, but its header (3x4294967295x4294967295) claims 3 items of "
               "18446744065119617025 bytes",
               false, "t10k-images-idx3-ubyte", images(3, 0xffffffff, 0xffffffff, 12));
  check_broken("more-data", "train-images-idx3-ubyte", images(3, 2, 2, 13), "holds 13 bytes of data", false);
  check_broken("zero-rows", "train-images-idx3-ubyte", images(3, 0, 2, 0), "IDX header has dimension 1 = 0 (3x0x2)",
               true);
  check_broken("zero-count", "t10k-images-idx3-ubyte", images(0, 2, 2, 0), "IDX header has dimension 0 = 0", true);
  check_broken("short-header", "t10k-labels-idx1-ubyte", be32(0x801) + "\x00\x00", "is truncated or not an IDX file",
               true);
}

TEST_CASE("IDX labels must be classes 0-9, counts must agree, and train and test images must have one size") {
  const std::string labels = be32(0x801) + be32(3);
  check_broken("label-10", "train-labels-idx1-ubyte", labels + std::string("\x00\x0a\x01", 3),
               "has label 10 at index 1, outside 0-9", false);
  check_broken("label-255", "t10k-labels-idx1-ubyte", labels + std::string("\x00\x01\xff", 3),
               "has label 255 at index 2, outside 0-9", false);
  const fs::path dir = make_idx_dir("label-count-message", false);
  write_raw(dir / "train-labels-idx1-ubyte", be32(0x801) + be32(2) + std::string("\x00\x01", 2));
  const std::string counts =
      "train-images-idx3-ubyte holds 3 images but " + (dir / "train-labels-idx1-ubyte").string() + " 2 labels";
  CHECK_THROWS_WITH_AS(load_idx_dataset(dir, 0, 0), doctest::Contains(counts.c_str()), DataError);
  // Test images 3x3 where training images are 2x2.
  check_broken("sizes", "t10k-images-idx3-ubyte", images(3, 3, 3, 27), "holds 3x3x3 images but", true);
}

TEST_CASE("the shape read from IDX headers matches what loading returns") {
  for (bool gz : {false, true}) {
    const fs::path dir = make_idx_dir(gz ? "shape-gz" : "shape-raw", gz);
    for (int64_t limit : {0, 2}) {
      const DatasetShape s = idx_dataset_shape(dir, limit, limit);
      const DatasetShape loaded = shape_of(load_idx_dataset(dir, limit, limit));
      CHECK(s.train_samples == loaded.train_samples);
      CHECK(s.test_samples == loaded.test_samples);
      CHECK(s.height == 2);
      CHECK(s.sample_floats() == loaded.sample_floats());
      CHECK(s.classes == 10);
    }
  }
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
