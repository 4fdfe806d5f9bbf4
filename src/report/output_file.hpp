// Writing one output file durably (written, flushed to disk, closed), and the error every output
// failure raises. A run writes its files into a temporary folder that moves into place as a whole
// (results_dir.hpp), so a single file needs no rename of its own.
#pragma once

#include <cerrno>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

#include "util/input_error.hpp"

namespace edgetrain::report {

// An output folder or file that cannot be used: the message names it and says why.
class OutputError : public std::runtime_error, public util::InputError {
 public:
  using std::runtime_error::runtime_error;
};

// Creates or truncates `path` and writes `content` to disk (fsync). Returns the error of the first
// step that failed (open, write, flush, close), or no error.
std::error_code write_file(const std::filesystem::path& path, const std::string& content);

// The errno of the last failed call, as an error code (its message is the errno text).
inline std::error_code last_error() { return {errno, std::generic_category()}; }

}  // namespace edgetrain::report
