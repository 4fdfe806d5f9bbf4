// Atomic output files: content goes to a temporary file in the same folder, then a rename
// replaces the target, so a reader never sees a half-written result.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace edgetrain::report {

class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void write_file_atomically(const std::filesystem::path& path, const std::string& content);

}  // namespace edgetrain::report
