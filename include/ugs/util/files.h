#pragma once
// Reading whole files and writing them atomically (temp file + rename), so a results file is either
// the old one or the new one, never half of one.
#include <string>

namespace ugs {

// Throws InputError naming the path when it cannot be read.
std::string read_file(const std::string& path);
// Throws InputError naming the path when it cannot be written.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace ugs
