// The build without MPI: no distributed strategies.
#include "ugs/search/distributed/comm.h"
#include "ugs/util/error.h"

namespace ugs {

bool mpi_built() { return false; }
std::unique_ptr<Comm> start_mpi() {
  throw InputError("this ugsearch was built without MPI (CMake found none): dfs-mpi and bfs over ranks are "
                   "not available; install an MPI (e.g. libopenmpi-dev) and rebuild");
}

}  // namespace ugs
