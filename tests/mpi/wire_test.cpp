// What travels between rank 0 and the workers, without MPI: an update round-trips bit for bit through the
// wire format, a short message is refused, and rank 0's mirror of a worker's snapshots and the worker's own
// list stay the same under the same calls (so an id rank 0 sends is one the worker holds).
#include <doctest/doctest.h>

#include <cstring>
#include <limits>
#include <memory>

#include "mpi/snapshot_lru.hpp"
#include "mpi/wire.hpp"

using namespace edgetrain;

TEST_CASE("wire: an update round-trips bit for bit, NaN, infinities and negative zero included") {
  backend::UpdatePayload u;
  u.encoded = {1, 2, 255, 0};
  u.bytes = 123456789012;
  u.compressed = false;
  u.indices = {{0, 5, 9}, {}, {std::numeric_limits<int64_t>::max()}};
  u.step = 42;
  u.control = {7, 7};
  u.control_compressed = false;
  u.server_part = {-0.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), 1e-40f};
  u.qffl_h = 0.1 + 0.2;
  mpi::Writer w;
  write_update(w, u);
  mpi::Reader r(w.bytes());
  const backend::UpdatePayload back = mpi::read_update(r);
  CHECK(r.done());
  CHECK(back.encoded == u.encoded);
  CHECK(back.bytes == u.bytes);
  CHECK(back.compressed == u.compressed);
  CHECK(back.indices == u.indices);
  CHECK(back.step == u.step);
  CHECK(back.control == u.control);
  CHECK(back.control_compressed == u.control_compressed);
  REQUIRE(back.server_part.size() == u.server_part.size());
  CHECK(std::memcmp(back.server_part.data(), u.server_part.data(), 4 * u.server_part.size()) == 0);
  CHECK(back.qffl_h == u.qffl_h);
}

TEST_CASE("wire: a message that ends early is a WireError, not a read past its end") {
  mpi::Writer w;
  w.put_vector<float>(std::vector<float>{1, 2, 3});
  std::vector<uint8_t> cut(w.bytes().begin(), w.bytes().end() - 1);
  mpi::Reader r(cut);
  CHECK_THROWS_AS(r.get_vector<float>(), mpi::WireError);
  std::vector<uint8_t> huge(8, 0xff);  // a count of 2^64 - 1 values
  mpi::Reader h(huge);
  CHECK_THROWS_AS(h.get_vector<float>(), mpi::WireError);
}

TEST_CASE("snapshots: rank 0's mirror and the worker's list hold the same ids after the same calls") {
  using Snapshot = std::shared_ptr<const std::vector<float>>;
  mpi::SnapshotLru<Snapshot> mirror(2), worker(2);
  std::vector<Snapshot> models;
  for (int i = 0; i < 4; ++i) models.push_back(std::make_shared<const std::vector<float>>(3, float(i)));
  uint64_t next = 1;
  // Rank 0 sends values when the worker does not hold the model, else its id; the worker does as told.
  const auto send = [&](const Snapshot& s) {
    if (auto* held = mirror.find_if([&](const Snapshot& m) { return m == s; })) {
      auto* there = worker.find(held->first);
      REQUIRE(there);
      CHECK(there->second == s);
      return false;
    }
    mirror.insert(next, s);
    worker.insert(next, s);
    ++next;
    return true;
  };
  CHECK(send(models[0]));
  CHECK(send(models[1]));
  CHECK_FALSE(send(models[0]));  // 0 most recent: 1 goes next
  CHECK(send(models[2]));        // evicts 1
  CHECK(send(models[1]));        // evicts 0
  CHECK_FALSE(send(models[2]));
  CHECK(send(models[0]));
  CHECK(mirror.size() == 2);
  CHECK(worker.size() == 2);
  CHECK(worker.find(1) == nullptr);  // models[0]'s first id went with it
}
