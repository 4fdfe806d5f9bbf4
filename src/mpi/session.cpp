// See session.hpp.
#include "mpi/session.hpp"

#include <mpi.h>

#include <stdexcept>

namespace edgetrain::mpi {

Session::Session() {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Init_thread failed");
  // An MPI error becomes an exception with its message, not Open MPI's abort of the whole job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

Session::~Session() { MPI_Finalize(); }

}  // namespace edgetrain::mpi
