#pragma once
// SIGINT and SIGTERM during a search stop it as --time-limit does: the results so far are written and
// marked partial (bfs also leaves its checkpoint), so a researcher's Ctrl-C keeps what an hour found.
// A second signal ends the process at once (the handlers reset themselves). Not installed under
// mpirun: the ranks must stop together, and mpirun ends them all on a signal anyway.
#include <atomic>

namespace ugs::cli {

class StopSignals {
 public:
  // Installs the handlers, which raise `stop`; the destructor restores the previous ones.
  explicit StopSignals(std::atomic<bool>& stop);
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The signal that stopped the search, or 0.
  static int caught();
};

// "SIGINT", "SIGTERM".
const char* signal_name(int sig);

}  // namespace ugs::cli
