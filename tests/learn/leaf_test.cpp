// The LEAF loader on folders written here: users and their samples in file order, the sample
// shape inferred or declared, counts from the headers, and each broken file refused in one line.
#include "learn/leaf.hpp"

#include <doctest/doctest.h>

#include "data_fixtures.hpp"

using namespace edgetrain::learn;
namespace fs = std::filesystem;

namespace {

// A user's JSON entry: n samples of 4 values (sample i of user u: u*100 + i*10 + k) and labels.
std::string user_data(int u, int n, const std::string& labels) {
  std::string x;
  for (int i = 0; i < n; ++i) {
    x += i ? ", [" : "[";
    for (int k = 0; k < 4; ++k) x += (k ? ", " : "") + std::to_string(u * 100 + i * 10 + k) + ".5";
    x += "]";
  }
  return "{\"x\": [" + x + "], \"y\": [" + labels + "]}";
}

fs::path leaf_dir(const std::string& name, const std::string& broken_train = "") {
  const fs::path dir = fixtures::scratch("leaf-" + name);
  fixtures::write(dir / "train" / "a.json",
                  broken_train.empty()
                      ? "{\"users\": [\"u1\", \"u2\"], \"num_samples\": [2, 3], \"hierarchies\": [], \"user_data\": "
                        "{\"u1\": " +
                            user_data(1, 2, "0, 1") + ", \"u2\": " + user_data(2, 3, "2, 2, 0") + "}}"
                      : broken_train);
  fixtures::write(dir / "train" / "b.json",
                  "{\"users\": [\"u3\"], \"num_samples\": [1], \"user_data\": {\"u3\": " + user_data(3, 1, "1") + "}}");
  fixtures::write(dir / "test" / "t.json", "{\"users\": [\"u1\"], \"num_samples\": [2], \"user_data\": {\"u1\": " +
                                               user_data(1, 2, "3, 0") + "}}");
  fixtures::write(dir / "train" / "notes.txt", "not read");
  return dir;
}

LeafSpec spec_of(const fs::path& dir) {
  LeafSpec s;
  s.dir = dir;
  return s;
}

void check_refused(const std::string& train_json, const std::string& expected) {
  const fs::path dir = leaf_dir("bad", train_json);
  CAPTURE(expected);
  const std::string want = (dir / "train" / "a.json").string() + " " + expected;
  CHECK_THROWS_WITH_AS(load_leaf_dataset(spec_of(dir)), doctest::Contains(want.c_str()), DataError);
}

}  // namespace

TEST_CASE("leaf: samples keep their users in file order, 4 values are a 1x2x2 image") {
  const DatasetPair d = load_leaf_dataset(spec_of(leaf_dir("ok")));
  CHECK(d.train.size() == 6);
  CHECK(d.test.size() == 2);
  CHECK(d.train.sample_users == std::vector<int64_t>{0, 0, 1, 1, 1, 2});
  CHECK(d.test.sample_users.empty());
  CHECK(d.train.labels == std::vector<int64_t>{0, 1, 2, 2, 0, 1});
  CHECK(d.train.classes == 4);  // the test set's label 3
  CHECK(d.train.channels == 1);
  CHECK(d.train.height == 2);
  CHECK(d.train.width == 2);
  CHECK(d.train.raw_sample_bytes == 16);
  // fp32 values standardised with the training mean and standard deviation.
  double mean = 0;
  for (float v : d.train.features) mean += v;
  CHECK(mean / 24 == doctest::Approx(0).epsilon(1e-6));
  CHECK(d.train.features[1] > d.train.features[0]);

  const DatasetShape s = leaf_dataset_shape(spec_of(leaf_dir("ok")));
  CHECK(s.train_samples == 6);
  CHECK(s.test_samples == 2);
  CHECK(s.user_samples == std::vector<int64_t>{2, 3, 1});
  CHECK(s.classes == 4);
  CHECK(s.sample_floats() == 4);
  CHECK(s.value_bytes == 4);

  LeafSpec declared = spec_of(leaf_dir("ok"));
  declared.shape = {1, 1, 4};
  declared.classes = 10;
  declared.train_limit = 3;
  const DatasetPair cut = load_leaf_dataset(declared);
  CHECK(cut.train.width == 4);
  CHECK(cut.train.classes == 10);
  CHECK(cut.train.sample_users == std::vector<int64_t>{0, 0, 1});
  CHECK(leaf_dataset_shape(declared).user_samples == std::vector<int64_t>{2, 1, 0});
  declared.shape = {1, 2, 3};
  CHECK_THROWS_WITH_AS(load_leaf_dataset(declared),
                       doctest::Contains("has samples of 4 values, but dataset.shape [1, 2, 3] holds 6"), DataError);
}

TEST_CASE("leaf: broken files are refused with one line naming the file and the fault") {
  const std::string head = "{\"users\": [\"u1\"], \"num_samples\": [2], \"user_data\": {\"u1\": ";
  check_refused(head + user_data(1, 2, "0") + "}}", "user u1 has 2 x but 1 y");
  check_refused(head + user_data(1, 2, "0, 1.5") + "}}", "user u1 has label 1.5");
  check_refused(head + "{\"x\": [[1, 2, 3, 4], \"abcd\"], \"y\": [0, 1]}}}",
                "user u1: a sample of x is a string, the first sample a list");
  check_refused(head + "{\"x\": [\"ab\\tc\", \"abcd\"], \"y\": [\"a\", \"b\"]}}}",
                "user u1: \"ab\tc\" is not one character of LEAF's 80-letter alphabet");
  check_refused(head + "{\"x\": [\"abcd\", \"abcd\"], \"y\": [\"a\", \"bc\"]}}}",
                "user u1: \"bc\" is not one character");
  check_refused(head + "{\"x\": [true, false], \"y\": [0, 1]}}}",
                "user u1: a sample of x is a boolean; x must be lists of numbers or strings of characters");
  check_refused(head + "{\"x\": [[1, 2, 3, 4], [1, 2]], \"y\": [0, 1]}}}",
                "user u1 sample 1 has 2 values, the first sample 4");
  check_refused("{\"users\": [\"u1\"], \"num_samples\": [3], \"user_data\": {\"u1\": " + user_data(1, 2, "0, 1") + "}}",
                "user u1 has 2 samples but num_samples says 3");
  check_refused(head + user_data(1, 2, "0, 1"), "is not valid JSON");
  check_refused("{\"users\": [\"u1\", \"u2\"], \"num_samples\": [2], \"user_data\": {}}",
                "lists 2 users but 1 num_samples");
  // Labels index the classes (at most 1000): a label of 10^15 would infer 10^15 + 1 of them.
  check_refused(head + user_data(1, 2, "0, 1000000000000000") + "}}", "user u1 has label 1e+15: labels are 0 to 999");
  // Counts beyond what their sums hold: refused, not wrapped.
  check_refused("{\"users\": [\"u1\"], \"num_samples\": [1e30], \"user_data\": {}}",
                "has num_samples 1e+30: not a count of at most");
  // A user name with a newline stays on the message's one line.
  check_refused("{\"users\": [\"u\\n1\"], \"num_samples\": [2], \"user_data\": {\"u\\n1\": " + user_data(1, 2, "0") + "}}",
                "user u\\x0a1 has 2 x but 1 y");
  CHECK_THROWS_WITH_AS(load_leaf_dataset(spec_of(fixtures::scratch("leaf-empty"))),
                       doctest::Contains("is not a directory (LEAF's train/ folder)"), DataError);
}

TEST_CASE("leaf: Shakespeare's text is characters as token indices of LEAF's alphabet, 80 classes, not standardised") {
  const fs::path dir = fixtures::scratch("leaf-text");
  fixtures::write(dir / "train" / "a.json",
                  "{\"users\": [\"ROMEO\", \"JULIET\"], \"num_samples\": [2, 1], \"user_data\": {"
                  "\"ROMEO\": {\"x\": [\"abc d\", \"\\nA}?.\"], \"y\": [\"e\", \"Z\"]}, "
                  "\"JULIET\": {\"x\": [\"0 9 !\"], \"y\": [\" \"]}}}");
  fixtures::write(dir / "test" / "a.json",
                  "{\"users\": [\"ROMEO\"], \"num_samples\": [1], \"user_data\": {"
                  "\"ROMEO\": {\"x\": [\"zzzzz\"], \"y\": [\"}\"]}}}");
  const DatasetPair d = load_leaf_dataset(spec_of(dir));
  CHECK(d.train.tokens);
  CHECK(d.train.classes == 80);
  CHECK(d.train.width == 5);
  CHECK(d.train.height == 1);
  // ALL_LETTERS = "\n !\"&'(),-.0123456789:;>?A..Z[]a..z}": a 53, ' ' 1, A 25, } 79, ? 24, . 10, 0 11, 9 20.
  CHECK(d.train.features == std::vector<float>{53, 54, 55, 1, 56, 0, 25, 79, 24, 10, 11, 1, 20, 1, 2});
  CHECK(d.train.labels == std::vector<int64_t>{57, 50, 1});
  CHECK(d.train.sample_users == std::vector<int64_t>{0, 0, 1});
  CHECK(d.test.features == std::vector<float>{78, 78, 78, 78, 78});
  CHECK(d.test.labels == std::vector<int64_t>{79});
  const DatasetShape s = leaf_dataset_shape(spec_of(dir));
  CHECK(s.classes == 80);
  CHECK(s.user_samples == std::vector<int64_t>{2, 1});
}
