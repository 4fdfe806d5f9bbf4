// See launch.hpp.
#include "mpi/launch.hpp"

#include <cstdlib>
#include <initializer_list>

namespace edgetrain::mpi {

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK"}) {
    const char* value = std::getenv(name);
    if (value && *value) return true;
  }
  return false;
}

}  // namespace edgetrain::mpi
