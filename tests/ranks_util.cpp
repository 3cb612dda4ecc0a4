#include "ranks_util.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace ugs::test {
namespace {

std::vector<std::string> command(int ranks, const std::vector<std::string>& args) {
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  // Open MPI keeps allocations past MPI_Finalize, in components it has unloaded by then (so no
  // suppression can name them): under AddressSanitizer the ranks run without the leak check.
  const std::string asan = std::getenv("ASAN_OPTIONS") ? std::getenv("ASAN_OPTIONS") : "";
  if (asan.find("detect_leaks=0") == std::string::npos)
    setenv("ASAN_OPTIONS", (asan.empty() ? std::string() : asan + ":").append("detect_leaks=0").c_str(), 1);
  std::vector<std::string> c = {UGS_MPIEXEC, "--oversubscribe", "--bind-to", "none", "-np", std::to_string(ranks),
                                UGS_BINARY};
  c.insert(c.end(), args.begin(), args.end());
  return c;
}

}  // namespace

pid_t spawn_ranks(int ranks, const std::vector<std::string>& args) {
  std::vector<std::string> c = command(ranks, args);
  const pid_t pid = fork();
  if (pid != 0) return pid;
  std::vector<char*> argv;
  for (std::string& s : c) argv.push_back(s.data());
  argv.push_back(nullptr);
  const int null = open("/dev/null", O_WRONLY);  // mpirun's messages about the killed rank
  dup2(null, STDERR_FILENO);
  execv(argv[0], argv.data());
  _exit(127);
}

RunResult run_ranks(int ranks, const std::vector<std::string>& args) { return run_command(command(ranks, args)); }

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> kids;
  std::error_code ec;  // a process may end while the directory is read
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    std::ifstream stat(e.path() / "stat");
    pid_t pid = 0, ppid = 0;
    std::string comm;
    char state = 0;
    if (stat >> pid >> comm >> state >> ppid && ppid == parent && comm == "(ugsearch)") kids.push_back(pid);
  }
  return kids;
}

std::set<std::string> result_hashes(const std::string& results) {
  std::set<std::string> h;
  const nlohmann::json doc = nlohmann::json::parse(read_file(results));  // outlives the loop
  for (const nlohmann::json& m : doc["mugraphs"]) h.insert(m["hash"].get<std::string>());
  return h;
}

}  // namespace ugs::test
