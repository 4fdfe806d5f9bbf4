// The .npz loader on archives written here: the same pixels as IDX files give the same values,
// stored and deflated archives read alike, channel-last arrays are transposed, and each broken
// file is refused with one line naming it.
#include "learn/npz.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "data_fixtures.hpp"

using namespace edgetrain::learn;
namespace fs = std::filesystem;
using fixtures::bytes_of;
using fixtures::npy;

namespace {

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

// Three 2x2 images (pixels i*10+j) with labels 0, 1, 2, as IDX files and as an archive.
const std::string kPixels = [] {
  std::string p;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) p += static_cast<char>(i * 10 + j);
  }
  return p;
}();
const std::string kLabels("\x00\x01\x02", 3);

fs::path write_npz(const std::string& name, const std::vector<std::pair<std::string, std::string>>& members,
                   bool deflated = false, bool zip64 = false) {
  const fs::path file = fixtures::scratch("npz-" + name) / "data.npz";
  fixtures::write(file, fixtures::zip(members, deflated, zip64));
  return file;
}

std::vector<std::pair<std::string, std::string>> uint8_members() {
  return {{"x_train.npy", npy("|u1", {3, 2, 2}, kPixels)},
          {"y_train.npy", npy("|u1", {3}, kLabels)},
          {"x_test.npy", npy("|u1", {3, 2, 2}, kPixels)},
          {"y_test.npy", npy("<i8", {3}, bytes_of(std::vector<int64_t>{0, 1, 2}))}};
}

NpzSpec spec_of(const fs::path& file) {
  NpzSpec s;
  s.file = file;
  return s;
}

void check_refused(const std::vector<std::pair<std::string, std::string>>& members, const std::string& expected,
                   NpzSpec spec = {}) {
  spec.file = write_npz("bad", members);
  CAPTURE(expected);
  CHECK_THROWS_WITH_AS(load_npz_dataset(spec), doctest::Contains(expected.c_str()), DataError);
}

}  // namespace

TEST_CASE("an npz of uint8 (N, H, W) arrays, stored, deflated or ZIP64, gives the values of the same pixels in IDX files") {
  const fs::path dir = fixtures::scratch("npz-idx");
  for (const std::string prefix : {"train", "t10k"}) {
    fixtures::write(dir / (prefix + "-images-idx3-ubyte"), be32(0x803) + be32(3) + be32(2) + be32(2) + kPixels);
    fixtures::write(dir / (prefix + "-labels-idx1-ubyte"), be32(0x801) + be32(3) + kLabels);
  }
  const DatasetPair idx = load_idx_dataset(dir, 0, 0);
  for (const auto& [deflated, zip64] : {std::pair{false, false}, std::pair{true, false}, std::pair{false, true}}) {
    CAPTURE(deflated);
    CAPTURE(zip64);
    const DatasetPair npz = load_npz_dataset(spec_of(write_npz("u8", uint8_members(), deflated, zip64)));
    CHECK(npz.train.codes == idx.train.codes);
    CHECK(npz.train.code_values == idx.train.code_values);
    CHECK(npz.test.values() == idx.test.values());
    CHECK(npz.train.labels == idx.train.labels);
    CHECK(npz.test.labels == idx.test.labels);
    CHECK(npz.train.classes == 3);  // the largest label + 1
    CHECK(npz.train.raw_sample_bytes == 4);
    const DatasetShape s = npz_dataset_shape(spec_of(write_npz("u8", uint8_members(), deflated, zip64)));
    CHECK(s.train_samples == 3);
    CHECK(s.height == 2);
    CHECK(s.width == 2);
    CHECK(s.classes == 3);
    CHECK(s.value_bytes == 1);
  }
}

TEST_CASE("npz: float32 channel-last arrays are transposed to channel-first and standardised") {
  // Two samples of 1x2 pixels with 3 channels, (N, H, W, C): value = 100*n + 10*pixel + channel.
  std::vector<float> x;
  for (int n = 0; n < 2; ++n) {
    for (int p = 0; p < 2; ++p) {
      for (int c = 0; c < 3; ++c) x.push_back(static_cast<float>(100 * n + 10 * p + c));
    }
  }
  const std::vector<std::pair<std::string, std::string>> members = {
      {"a.npy", npy("<f4", {2, 1, 2, 3}, bytes_of(x))},
      {"b.npy", npy("<i4", {2, 1}, bytes_of(std::vector<int32_t>{1, 0}))},
      {"c.npy", npy("<f4", {2, 1, 2, 3}, bytes_of(x))},
      {"d.npy", npy("<u2", {2}, bytes_of(std::vector<uint16_t>{0, 1}))}};
  NpzSpec spec = spec_of(write_npz("f4", members));
  spec.x_train = "a";
  spec.y_train = "b";
  spec.x_test = "c";
  spec.y_test = "d";
  CHECK_THROWS_WITH_AS(load_npz_dataset(spec), doctest::Contains("say where its channels are with dataset.channels_at"),
                       DataError);
  spec.channels_at = "last";
  const DatasetPair d = load_npz_dataset(spec);
  CHECK(d.train.channels == 3);
  CHECK(d.train.height == 1);
  CHECK(d.train.width == 2);
  CHECK(d.train.labels == std::vector<int64_t>{1, 0});
  // Channel-first order, standardised with the training values' mean and standard deviation.
  double mean = 0, sq = 0;
  for (float f : x) {
    mean += f / 12.0;
    sq += double{f} * f / 12.0;
  }
  const double sd = std::sqrt(sq - mean * mean);
  const std::vector<float> raw = {0, 10, 1, 11, 2, 12, 100, 110, 101, 111, 102, 112};
  const std::vector<float> v = d.train.values();
  REQUIRE(v.size() == raw.size());
  for (size_t k = 0; k < raw.size(); ++k) CHECK(v[k] == doctest::Approx((raw[k] - mean) / sd).epsilon(1e-5));
  spec.channels_at = "first";  // (2, 1, 2, 3) read as C=1, H=2, W=3
  CHECK(load_npz_dataset(spec).train.sample_size() == 6);
}

TEST_CASE("npz: limits keep the first samples, and the shape from the headers agrees") {
  NpzSpec spec = spec_of(write_npz("limit", uint8_members()));
  spec.train_limit = 2;
  spec.test_limit = 1;
  const DatasetPair d = load_npz_dataset(spec);
  CHECK(d.train.size() == 2);
  CHECK(d.test.size() == 1);
  CHECK(d.train.codes.size() == 8);
  const DatasetShape s = npz_dataset_shape(spec);
  CHECK(s.train_samples == 2);
  CHECK(s.test_samples == 1);
  CHECK(s.classes == 2);  // labels 0, 1 (train) and 0 (test) kept
}

TEST_CASE("npz: broken archives and arrays are refused with one line naming the file and the fault") {
  auto with = [](const std::string& member, const std::string& bytes) {
    auto m = uint8_members();
    for (auto& [name, data] : m) {
      if (name == member) data = bytes;
    }
    return m;
  };
  check_refused(with("x_train.npy", npy("|u1", {3, 2, 2}, kPixels.substr(0, 10))),
                "x_train.npy holds 10 bytes of data, but its header ((3, 2, 2) u1) claims 12 (truncated array)");
  check_refused(with("x_train.npy", npy("<i4", {3, 2, 2}, std::string(48, '\0'))),
                "x_train.npy has dtype i4: samples must be uint8 or float32");
  check_refused(with("y_train.npy", npy("<f4", {3}, std::string(12, '\0'))),
                "y_train.npy has dtype f4: labels must be integers");
  check_refused(with("y_train.npy", npy(">i4", {3}, std::string(12, '\0'))), "y_train.npy has dtype >i4");
  check_refused(with("y_train.npy", npy("|u1", {2}, "\x00\x01")), "y_train.npy holds 2 labels but");
  check_refused(with("y_test.npy", npy("|i1", {3}, std::string("\x00\xff\x01", 3))),
                "y_test.npy has label -1 at sample 1, outside 0-");
  check_refused(with("x_test.npy", npy("|u1", {3, 4}, std::string(12, '\0'))), "the samples differ");
  check_refused(with("x_train.npy", "not an array"), "x_train.npy is");
  // Dimensions whose product would wrap around: (1, 2^32, 2^32) is 2^64 values per sample, not 0.
  check_refused(with("x_train.npy", npy("|u1", {1, 4294967296, 4294967296}, "")),
                "x_train.npy has shape (1, 4294967296, 4294967296): more than 2^24 values per sample");
  check_refused(with("x_train.npy", npy("<f4", {999999999999, 4097, 4096}, "")),
                "x_train.npy has shape (999999999999, 4097, 4096): more than 2^24 values per sample");
  NpzSpec declared;
  declared.classes = 2;
  check_refused(uint8_members(), "y_train.npy has label 2 at sample 2, outside 0-1 (dataset.classes = 2)", declared);
  auto missing = uint8_members();
  missing.pop_back();
  check_refused(missing, "has no array y_test.npy (it holds: x_train.npy, y_train.npy, x_test.npy)");

  // Labels within dataset.classes' bound when the classes are inferred from them.
  check_refused(with("y_train.npy", npy("<i8", {3}, bytes_of(std::vector<int64_t>{0, 1, 1000000000000000}))),
                "has label 1000000000000000: labels are 0 to 999");
  // Not a file: refused at once (a FIFO would block the open, /dev/zero never end).
  CHECK_THROWS_WITH_AS(load_npz_dataset(spec_of("/dev/zero")),
                       doctest::Contains("/dev/zero: the data file must be a regular file"), DataError);

  const fs::path file = write_npz("cut", uint8_members());
  const std::string whole = fixtures::zip(uint8_members());
  fixtures::write(file, whole.substr(0, whole.size() / 2));
  CHECK_THROWS_WITH_AS(load_npz_dataset(spec_of(file)), doctest::Contains("is not a zip archive"), DataError);
  CHECK_THROWS_WITH_AS(npz_dataset_shape(spec_of(file)), doctest::Contains(file.string().c_str()), DataError);
}

TEST_CASE("npz: a users array numbers each training sample's user by first appearance, integers or strings") {
  auto members = uint8_members();
  members.emplace_back("users_train.npy", npy("<i4", {3}, bytes_of(std::vector<int32_t>{42, 7, 42})));
  NpzSpec spec = spec_of(write_npz("users-int", members));
  CHECK(load_npz_dataset(spec).train.sample_users.empty());  // read only when named
  spec.users = "users_train";
  CHECK(load_npz_dataset(spec).train.sample_users == std::vector<int64_t>{0, 1, 0});
  CHECK(npz_dataset_shape(spec).user_samples == std::vector<int64_t>{2, 1});
  spec.train_limit = 2;
  CHECK(load_npz_dataset(spec).train.sample_users == std::vector<int64_t>{0, 1});
  // NumPy's unicode strings ('<U3', UTF-32): "bob", "al" (padded with NULs), "bob".
  std::string utf32;
  for (const std::string& name : {std::string("bob"), std::string("al\0", 3), std::string("bob")})
    for (char c : name) utf32 += fixtures::le(static_cast<unsigned char>(c), 4);
  auto named = uint8_members();
  named.emplace_back("clients.npy", npy("<U3", {3}, utf32));
  NpzSpec by_name = spec_of(write_npz("users-str", named));
  by_name.users = "clients";
  CHECK(load_npz_dataset(by_name).train.sample_users == std::vector<int64_t>{0, 1, 0});
}

TEST_CASE("npz: a users array of the wrong kind or count, or missing, is refused naming it") {
  NpzSpec spec;
  spec.users = "users_train";
  auto floats = uint8_members();
  floats.emplace_back("users_train.npy", npy("<f4", {3}, bytes_of(std::vector<float>{1, 2, 3})));
  check_refused(floats, "users_train.npy has dtype f4: users must be integers or strings", spec);
  auto short_list = uint8_members();
  short_list.emplace_back("users_train.npy", npy("<i8", {2}, bytes_of(std::vector<int64_t>{1, 2})));
  check_refused(short_list, "users_train.npy holds 2 users but", spec);
  check_refused(uint8_members(), "has no array users_train.npy", spec);
  check_refused(uint8_members(), "partition natural reads each training sample's user from it", spec);
  // Strings are no labels.
  auto string_labels = uint8_members();
  string_labels[1] = {"y_train.npy", npy("<U1", {3}, std::string(12, 'a'))};
  check_refused(string_labels, "y_train.npy has dtype U1: labels must be integers");
}
