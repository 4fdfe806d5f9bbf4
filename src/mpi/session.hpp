// This process's part in an MPI job: MPI initialised on construction (only ever made when
// launched_by_mpi() says a launcher started the process) and finalised on destruction. Only the
// thread that made it calls MPI (MPI_THREAD_FUNNELED): the simulation's on rank 0, the command
// loop's on a worker; the worker pool's threads never do.
#pragma once

namespace edgetrain::mpi {

class Session {
 public:
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace edgetrain::mpi
