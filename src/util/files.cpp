#include "ugs/util/files.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "ugs/util/error.h"

namespace ugs {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot read file (" + std::strerror(errno) + ")");
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_file_atomic(const std::string& path, const std::string& content) {
  AtomicFileWriter file(path);
  file.write(content.data(), content.size());
  file.commit();
}

AtomicFileWriter::AtomicFileWriter(std::string path)
    : path_(std::move(path)), tmp_(path_ + ".tmp." + std::to_string(::getpid())) {
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (!file_) throw InputError(path_ + ": cannot write file (" + std::strerror(errno) + "); check the directory exists");
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!file_) return;
  std::fclose(file_);
  std::remove(tmp_.c_str());
}

void AtomicFileWriter::write(const void* data, size_t bytes) {
  if (bytes > 0 && std::fwrite(data, 1, bytes, file_) != bytes) fail();
}

void AtomicFileWriter::commit() {
  const bool ok = std::fflush(file_) == 0 && ::fsync(fileno(file_)) == 0;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok || !closed || std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    std::remove(tmp_.c_str());
    throw InputError(path_ + ": cannot write file (" + std::strerror(errno) + ")");
  }
}

void remove_stale_temp_files(const std::string& path) {
  const std::filesystem::path target(path);
  const std::string prefix = target.filename().string() + ".tmp.";
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().filename().string().starts_with(prefix)) std::filesystem::remove(entry.path(), ec);
}

void AtomicFileWriter::fail() {
  const std::string why = std::strerror(errno);
  std::fclose(file_);
  file_ = nullptr;
  std::remove(tmp_.c_str());
  throw InputError(path_ + ": cannot write file (" + why + ")");
}

}  // namespace ugs
