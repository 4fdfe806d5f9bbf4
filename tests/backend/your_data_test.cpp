// The user's formats through the back-end's set-up: timing-only runs read headers and counts (an
// npz archive's array headers, a LEAF folder's num_samples), the natural partition follows the
// users there as in real runs, and the memory estimate counts the values at their stored width.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "backend/learning_setup.hpp"
#include "backend/memory_estimate.hpp"
#include "learn/partition.hpp"
#include "scenario/load.hpp"

using namespace edgetrain;
namespace fs = std::filesystem;

namespace {

scenario::Scenario two_devices() {
  scenario::Scenario s = scenario::typed_defaults();
  s.devices.resize(2);
  s.devices[0].name = "a";
  s.devices[1].name = "b";
  s.eval.test_samples = 10000;
  return s;
}

// Users u1, u2, u3 with 2, 0 and 3 training samples of 9 values (3x3), one test sample.
fs::path leaf_folder() {
  const fs::path dir = fs::temp_directory_path() / "edgetrain-backend-leaf";
  fs::remove_all(dir);
  fs::create_directories(dir / "train");
  fs::create_directories(dir / "test");
  const std::string sample = "[0, 1, 2, 3, 4, 5, 6, 7, 8]";
  std::ofstream(dir / "train/a.json") << "{\"users\": [\"u1\", \"u2\", \"u3\"], \"num_samples\": [2, 0, 3], "
                                         "\"user_data\": {\"u1\": {\"x\": ["
                                      << sample << ", " << sample
                                      << "], \"y\": [0, 1]}, \"u2\": {\"x\": [], \"y\": []}, \"u3\": {\"x\": ["
                                      << sample << ", " << sample << ", " << sample << "], \"y\": [2, 0, 1]}}}";
  std::ofstream(dir / "test/a.json") << "{\"users\": [\"u1\"], \"num_samples\": [1], \"user_data\": {\"u1\": "
                                        "{\"x\": ["
                                     << sample << "], \"y\": [1]}}}";
  return dir;
}

}  // namespace

TEST_CASE("leaf, timing-only: counts from num_samples, the natural partition by user, as a real run's") {
  scenario::Scenario s = two_devices();
  s.dataset.name = "leaf";
  s.dataset.path = leaf_folder();
  s.dataset.shape.clear();  // as the schema leaves it for leaf: inferred
  s.dataset.classes = 0;    // the largest label + 1
  s.dataset.partition.kind = "natural";
  s.dataset.partition.users_per_device = 1;
  const learn::KnownData known = backend::known_data(s);
  CHECK(known.shape.train_samples == 5);
  CHECK(known.shape.test_samples == 1);
  CHECK(known.shape.height == 3);
  CHECK(known.shape.classes == 3);
  CHECK(known.raw_sample_bytes == 36);  // 9 fp32 values
  CHECK(known.source.find("leaf (") == 0);
  const auto counted = backend::partition_counts(s, known.shape);
  REQUIRE(counted.devices() == 2);
  CHECK(counted.of(0)->size() == 2);  // u1; u2 has no sample and is skipped
  CHECK(counted.of(1)->size() == 3);  // u3
  const learn::DatasetPair data = backend::load_data(s);
  const auto real = backend::partition_data(s, data.train);
  CHECK(*real.of(0) == std::vector<int64_t>{0, 1});
  CHECK(*real.of(1) == std::vector<int64_t>{2, 3, 4});
  s.devices.resize(3);
  CHECK_THROWS_WITH_AS(backend::partition_counts(s, known.shape),
                       doctest::Contains("each of 3 devices, but the training set has 2 users with samples"),
                       learn::PartitionError);
  // dataset.partition.parts: the two users' parts dealt in turn, shared rather than copied.
  s.dataset.partition.parts = 2;
  const auto shared = backend::partition_data(s, data.train);
  REQUIRE(shared.devices() == 3);
  CHECK(*shared.of(2) == std::vector<int64_t>{0, 1});
  CHECK(shared.of(2) == shared.of(0));
  CHECK(backend::partition_counts(s, known.shape).of(2)->size() == 2);
  s.dataset.partition.parts = 4;
  CHECK_THROWS_WITH_AS(backend::partition_data(s, data.train),
                       "dataset.partition.parts: 4 parts for 3 devices; at most one part per device",
                       learn::PartitionError);
}

namespace {
learn::DatasetShape data_shape(int64_t train, int64_t test, int64_t value_bytes, double read_bytes) {
  learn::DatasetShape d;
  d.train_samples = train;
  d.test_samples = test;
  d.value_bytes = value_bytes;
  d.read_bytes = read_bytes;
  return d;
}
}  // namespace

TEST_CASE("the memory estimate counts values at their stored width and what reading holds") {
  scenario::Scenario s = two_devices();
  s.dataset.name = "npz";
  const learn::DatasetShape bytes = data_shape(1000, 0, 1, 0), floats = data_shape(1000, 0, 4, 5e6);
  const backend::MemoryEstimate one = backend::estimate_memory(s, bytes, {}, {});
  const backend::MemoryEstimate four = backend::estimate_memory(s, floats, {}, {});
  CHECK(four.data_bytes - one.data_bytes == doctest::Approx(1000.0 * 784 * 3));
  CHECK(four.read_bytes == 5e6);
  // Read before the model is made: the peak holds the larger of the two.
  CHECK(four.total() - four.data_bytes - four.runtime_bytes == doctest::Approx(std::max(5e6, four.model_bytes + four.activation_bytes)));
}

TEST_CASE("a timing-only estimate holds no values, and names its devices' cost apart from the data") {
  scenario::Scenario s = two_devices();
  s.training.compute = "timing-only";
  const backend::MemoryEstimate e = backend::estimate_memory(s, data_shape(1000, 500, 4, 5e6), {}, {});
  CHECK(e.data_bytes == doctest::Approx(3.0 * 1000 * 8));  // the partition's indices, no value, nothing read
  CHECK(e.device_bytes == doctest::Approx(2 * 52e3));
  CHECK(e.describe().find("; data 24 kB; devices 104 kB;") != std::string::npos);
}
