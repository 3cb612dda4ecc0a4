#pragma once
// Reading whole files and writing them atomically (temp file + rename), so a results file is either
// the old one or the new one, never half of one.
#include <cstdio>
#include <string>

namespace ugs {

// Throws InputError naming the path when it cannot be read.
std::string read_file(const std::string& path);
// Throws InputError naming the path when it cannot be written.
void write_file_atomic(const std::string& path, const std::string& content);

// A file written piece by piece and then put in place at once: the pieces go to a temp file beside
// it, and commit() syncs it and renames it over `path`. Dropped before commit(), the temp file goes
// and `path` is untouched. For files too big to hold whole in memory (checkpoints). Each call throws
// InputError naming the path when the file cannot be written.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(const void* data, size_t bytes);
  void commit();

 private:
  [[noreturn]] void fail();
  std::string path_, tmp_;
  std::FILE* file_ = nullptr;
};

// Removes the temp files that writers of `path` killed before commit() left beside it (each as big
// as the file was to be). For a file only one process writes at a time.
void remove_stale_temp_files(const std::string& path);

}  // namespace ugs
