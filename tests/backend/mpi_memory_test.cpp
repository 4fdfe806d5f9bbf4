// The memory estimate under MPI (backend::LearnerPlacement): rank 0 holds none of the devices' training
// state, a worker rank its share of the devices; a refusal there names more worker ranks as the way out. Each
// training thread beyond the first adds its own network and activations.
#include <doctest/doctest.h>

#include "backend/memory_estimate.hpp"
#include "scenario/load.hpp"

using namespace edgetrain;

namespace {
scenario::Scenario devices(size_t n) {
  scenario::Scenario s = scenario::typed_defaults();
  s.devices.resize(n);
  for (size_t i = 0; i < n; ++i) s.devices[i].name = "d" + std::to_string(i);
  s.compression.uplink.error_feedback = true;  // two vectors per device: its update and its residual
  return s;
}
learn::DatasetShape shape() {
  learn::DatasetShape d;
  d.train_samples = 1000;
  d.test_samples = 100;
  d.channels = 1;
  d.height = 28;
  d.width = 28;
  d.classes = 10;
  return d;
}
learn::ModelShape model() {
  learn::ModelShape m;
  m.params = 1e6;
  return m;
}
}  // namespace

TEST_CASE("memory under MPI: rank 0 counts no device's state, each worker its share of the devices") {
  const scenario::Scenario s = devices(10);
  const backend::MemoryEstimate alone = backend::estimate_memory(s, shape(), model());
  const backend::MemoryEstimate rank0 = backend::estimate_memory(s, shape(), model(), {}, {3, 0, 4});
  const backend::MemoryEstimate rank1 = backend::estimate_memory(s, shape(), model(), {}, {3, 1, 4});
  const backend::MemoryEstimate rank3 = backend::estimate_memory(s, shape(), model(), {}, {3, 3, 4});
  const double per_device = static_cast<double>(backend::model_memory_vectors(s));
  CHECK(per_device == 2);
  // Alone: 10 devices' vectors and the server's. Rank 0: the server's and 4 snapshots per worker.
  CHECK(rank0.model_vectors == doctest::Approx(alone.model_vectors - 10 * per_device + 3 * 4));
  // Devices 0, 3, 6, 9 on rank 1; 2, 5, 8 on rank 3: theirs, 4 snapshots, the initial model and a workspace's 2.
  CHECK(rank1.model_vectors == doctest::Approx(4 * per_device + 4 + 3));
  CHECK(rank3.model_vectors == doctest::Approx(3 * per_device + 4 + 3));
  CHECK(rank1.data_bytes == alone.data_bytes);  // each rank loads the data itself
  try {
    backend::check_memory(rank1, 1e6);
    FAIL("1 MB is enough for nothing");
  } catch (const backend::MemoryError& e) {
    const std::string message = e.what();
    CHECK(message.find(" on MPI worker rank 1, 4 devices but ") != std::string::npos);
    CHECK(message.find("; more worker ranks (mpirun -np, on more nodes) hold fewer devices each") != std::string::npos);
  }
}

TEST_CASE("memory: each training thread beyond the first counts a network and a step's activations") {
  const scenario::Scenario s = devices(10);
  learn::ModelShape m = model();
  m.activation_floats_per_sample = 1000;
  const backend::MemoryEstimate one = backend::estimate_memory(s, shape(), m, {}, {}, false, 1);
  const backend::MemoryEstimate three = backend::estimate_memory(s, shape(), m, {}, {}, false, 3);
  CHECK(three.model_vectors == doctest::Approx(one.model_vectors + 2 * 2));  // LibTorch's gradients and the output
  const double step = 32 * 1000 * 4 * 3;  // batch x activations x fp32 x the copies a step keeps
  CHECK(three.activation_bytes == doctest::Approx(one.activation_bytes + 2 * step));
  // Under MPI the workers' threads train; rank 0's do not.
  const backend::MemoryEstimate rank0 = backend::estimate_memory(s, shape(), m, {}, {3, 0, 4}, false, 3);
  const backend::MemoryEstimate rank0_one = backend::estimate_memory(s, shape(), m, {}, {3, 0, 4}, false, 1);
  CHECK(rank0.total() == rank0_one.total());
  const backend::MemoryEstimate rank1 = backend::estimate_memory(s, shape(), m, {}, {3, 1, 4}, false, 3);
  const backend::MemoryEstimate rank1_one = backend::estimate_memory(s, shape(), m, {}, {3, 1, 4}, false, 1);
  CHECK(rank1.model_vectors == doctest::Approx(rank1_one.model_vectors + 4));
}
