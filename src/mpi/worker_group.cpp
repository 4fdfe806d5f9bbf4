// See worker_group.hpp.
#include "mpi/worker_group.hpp"

#include "mpi/commands.hpp"
#include "mpi/remote_backend.hpp"
#include "mpi/wire.hpp"

namespace edgetrain::mpi {

std::unique_ptr<backend::Backend> WorkerGroup::place(std::unique_ptr<backend::Backend> local,
                                                     const scenario::Scenario& scenario,
                                                     const backend::MemoryEstimate& memory) {
  estimates_.assign(1, memory.total());
  Writer build;
  build.put(Command::build);
  for (int rank = 1; rank < ranks_; ++rank) channel_.post(rank, Tag::command, build.bytes());
  std::string failed;  // every worker answers before any is told anything else
  for (int rank = 1; rank < ranks_; ++rank) {
    const std::vector<uint8_t> reply = channel_.receive(rank, Tag::reply);
    Reader r(reply);
    if (r.get<Status>() != Status::ok) {
      if (failed.empty()) failed = "learning worker (MPI rank " + std::to_string(rank) + ") could not set up: " + r.get_string();
    } else {
      estimates_.push_back(r.get<double>());
    }
  }
  if (!failed.empty()) throw WorkerError(failed);
  channel_.stats() = TransferStats{};  // what the run's steps cost, not the workers' set-up (loading the data)
  placed_ = true;
  return std::make_unique<RemoteBackend>(std::move(local), scenario, channel_, ranks_);
}

void WorkerGroup::quit() {
  if (quit_) return;
  quit_ = true;
  Writer w;
  w.put(Command::quit);
  try {
    for (int rank = 1; rank < ranks_; ++rank) channel_.post(rank, Tag::command, w.bytes());
    channel_.flush();  // before MPI_Finalize
  } catch (const std::exception&) {
    // A worker that is gone needs no quit.
  }
}

std::string refusal_under_mpi(const scenario::Scenario& scenario) {
  if (scenario.strategy && (scenario.strategy->personalised() || scenario.strategy->evaluates_devices())) {
    return "strategy.kind " + scenario.strategy->kind +
           " is refused under MPI: its devices' personal models are evaluated on rank 0, and the learning workers "
           "do not send them back; run it without mpirun (--threads N uses this machine's cores)";
  }
  return "";
}

}  // namespace edgetrain::mpi
