#include "test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace ugs::test {
namespace {

std::string quote(const std::string& s) {
  std::string r = "'";
  for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

}  // namespace

std::string temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "ugs_test_XXXXXX").string();
  if (!mkdtemp(tmpl.data())) std::abort();
  return tmpl;
}

RunResult run_ugsearch(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {UGS_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv);
}

RunResult run_command(const std::vector<std::string>& argv) {
  const std::string dir = temp_dir();
  std::string cmd;
  for (const std::string& a : argv) cmd += quote(a) + " ";
  cmd += ">" + quote(dir + "/out") + " 2>" + quote(dir + "/err");
  const int rc = std::system(cmd.c_str());
  RunResult r;
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = read_file(dir + "/out");
  r.err = read_file(dir + "/err");
  std::filesystem::remove_all(dir);
  return r;
}

int checkpoint_level(const std::string& dir) {
  const std::string path = dir + "/checkpoint.ugs";
  if (!std::filesystem::exists(path)) return -1;
  const std::string bytes = read_file(path);
  uint64_t len = 0;  // the header: 8 bytes of magic, its JSON's length, its JSON
  std::memcpy(&len, bytes.data() + 8, sizeof len);
  return nlohmann::json::parse(bytes.substr(16, len))["current"].get<int>();
}

}  // namespace ugs::test
