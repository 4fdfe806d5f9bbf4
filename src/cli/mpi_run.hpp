// `edgetrain run` started by mpirun or srun (mpi::launched_by_mpi): rank 0 reads the command line, refuses
// what MPI workers cannot run, simulates and writes the results as a plain run does, its devices' steps
// run by the other ranks; those ranks print nothing and end with status 0 once rank 0 ends.
// EDGETRAIN_MPI_STATS=FILE: rank 0 writes what the transfers cost it there, and each rank's memory estimate (JSON;
// tools/bench's mpi, tests/mpi/memory_test.py).
#pragma once

#include <string>
#include <vector>

namespace edgetrain::cli {

int run_under_mpi(const std::vector<std::string>& words);

}  // namespace edgetrain::cli
