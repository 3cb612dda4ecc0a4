#pragma once
// Running ugsearch under mpirun from a test: oversubscribed (more ranks than cores), unbound (a rank's
// threads may use every core), allowed as root (CI containers run as root).
#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

#include "test_util.h"

namespace ugs::test {

// `mpirun -np ranks ugsearch args...`, waited for.
RunResult run_ranks(int ranks, const std::vector<std::string>& args);
// The same, started in the background: the mpirun process (wait for it with waitpid).
pid_t spawn_ranks(int ranks, const std::vector<std::string>& args);
// The ugsearch processes whose parent is `parent` (mpirun's ranks).
std::vector<pid_t> children_of(pid_t parent);
// The μGraph hashes of a results file.
std::set<std::string> result_hashes(const std::string& results);

}  // namespace ugs::test
