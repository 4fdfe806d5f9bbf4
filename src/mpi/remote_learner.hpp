// A device's learner on rank 0 under MPI: each call becomes a command to the worker rank that owns the
// device. start_step returns at once (the step runs on the worker while rank 0 simulates), finish_step
// and finish_update wait for the worker's answer. A worker's failure comes back as a WorkerError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/learner.hpp"
#include "mpi/channel.hpp"
#include "mpi/commands.hpp"
#include "mpi/snapshot_lru.hpp"
#include "mpi/wire.hpp"

namespace edgetrain::mpi {

class WorkerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One worker rank as rank 0 sees it: which snapshots it holds (the mirror of its SnapshotLru). The
// mirror keeps the snapshots alive, so no address is reused for another model while its id stands
// (the stores copy a model before changing it while anyone holds it).
struct WorkerLink {
  explicit WorkerLink(int r) : rank(r) {}
  int rank;
  SnapshotLru<std::shared_ptr<const std::vector<float>>> held{kSnapshotsPerRank};
  uint64_t next_id = 1;
};

class RemoteLearner : public backend::DeviceLearner {
 public:
  // `compressed_updates`: the device's count before its first update (-1: not adaptive).
  // `steps_per_update`: the steps of one update (the last one's answer brings the update along).
  RemoteLearner(size_t device, std::string name, WorkerLink& link, Channel& channel, int64_t compressed_updates,
                int64_t steps_per_update);

  void receive(const backend::ModelPayload& model) override;
  void start_step(std::vector<int64_t> batch) override;
  double finish_step() override;
  backend::UpdatePayload finish_update() override;
  void abandon() override;
  int64_t compressed_updates() const override { return compressed_updates_; }
  std::span<const float> secure_input() const override { return secure_input_; }

 private:
  // A command to the worker about this device; what follows it is the command's own.
  Writer command(Command c) const;
  // The worker's reply: its reader past the status and busy time; a WorkerError for an error reply.
  std::vector<uint8_t> await_reply();
  // Reads finish_update's part of a reply.
  backend::UpdatePayload read_update_reply(Reader& r);

  size_t device_;
  std::string name_;
  WorkerLink& link_;
  Channel& channel_;
  int64_t compressed_updates_;
  int64_t steps_per_update_;
  int64_t steps_finished_ = 0;                  // of the update in progress
  std::optional<backend::UpdatePayload> ready_;  // the update the last step's answer brought
  std::vector<float> secure_input_;  // secure aggregation: the last update as decoded, from the worker
};

}  // namespace edgetrain::mpi
