#pragma once
// The processes (ranks) of a distributed search (docs/design.md §5: dfs-mpi, and bfs under mpirun), behind
// one interface so that the drivers never name MPI: only src/search/mpi_comm.cpp does, built when
// CMake finds MPI (src/search/mpi_stub.cpp otherwise). Every call is made by a process's main thread
// (MPI_THREAD_FUNNELED). Waits poll and sleep instead of spinning: a rank shares its cores with its
// own worker threads, and on a small machine with the other ranks.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ugs {

class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // Collectives: every rank makes the same calls in the same order.
  virtual void sum(std::span<uint64_t> v) = 0;  // element-wise over the ranks, in place
  virtual std::vector<std::string> all_gather(const std::string& mine) = 0;  // every rank's, by rank
  // to[r] goes to rank r; returns what each rank sent this one, by rank.
  virtual std::vector<std::string> all_to_all(const std::vector<std::string>& to) = 0;
  // Rank 0 gets every rank's, by rank; the others get an empty vector.
  virtual std::vector<std::string> gather(const std::string& mine) = 0;

  // Point to point.
  virtual void send(int to, int tag, const std::string& msg) = 0;
  virtual std::optional<std::pair<int, std::string>> try_receive(int tag) = 0;  // from any rank
  virtual std::string receive(int from, int tag) = 0;

  // Ends every rank of the run with `code`: a failure on one rank must fail the whole run.
  [[noreturn]] virtual void abort(int code) = 0;

  // Bytes this rank sent to and received from other ranks so far.
  uint64_t bytes_sent() const { return sent_; }
  uint64_t bytes_received() const { return received_; }

 protected:
  uint64_t sent_ = 0, received_ = 0;
};

// Whether this build has MPI (CMake found it).
bool mpi_built();
// Whether mpirun (or another MPI launcher) started this process: its environment says so.
inline bool under_mpi_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(v)) return true;
  return false;
}
// Initializes MPI and returns its world; MPI is finalized when it is destroyed. Throws InputError in
// a build without MPI.
std::unique_ptr<Comm> start_mpi();

}  // namespace ugs
