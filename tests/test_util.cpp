#include "test_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
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

int spawn_ugsearch(const std::vector<std::string>& args, const std::string& dir) {
  std::vector<std::string> a = args;
  const std::string out = dir + "/out", err = dir + "/err";
  const pid_t pid = fork();
  if (pid != 0) return pid;
  if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(127);
  std::vector<char*> argv{const_cast<char*>(UGS_BINARY)};
  for (std::string& s : a) argv.push_back(s.data());
  argv.push_back(nullptr);
  execv(UGS_BINARY, argv.data());
  _exit(127);
}

int checkpoint_level(const std::string& dir) {
  const std::string path = dir + "/checkpoint.ugs";
  if (!std::filesystem::exists(path)) return -1;
  std::ifstream in(path, std::ios::binary);  // the header only: the file ends with its JSON and its length
  uint64_t len = 0;
  in.seekg(-static_cast<std::streamoff>(sizeof len), std::ios::end);
  in.read(reinterpret_cast<char*>(&len), sizeof len);
  in.seekg(-static_cast<std::streamoff>(sizeof len + len), std::ios::end);
  std::string header(len, '\0');
  in.read(header.data(), static_cast<std::streamsize>(len));
  return nlohmann::json::parse(header)["current"].get<int>();
}

}  // namespace ugs::test
