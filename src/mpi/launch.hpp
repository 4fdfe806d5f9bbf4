// Whether this process was started by an MPI launcher (mpirun, or srun with PMIx), read from the
// launcher's environment before any MPI call: a plain run never initialises MPI and pays nothing for it.
#pragma once

namespace edgetrain::mpi {

// Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE; srun --mpi=pmix (and PMIx launchers) set PMIX_RANK.
bool launched_by_mpi();

}  // namespace edgetrain::mpi
