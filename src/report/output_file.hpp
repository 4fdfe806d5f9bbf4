// Writing output files: one result file durably (written, flushed to disk, closed), one file a
// command names with -o (write_output: what is at the path decides how), and the error every
// output failure raises. A run writes its files into a temporary folder that moves into place as
// a whole (results_dir.hpp), so a result file needs no rename of its own.
#pragma once

#include <cerrno>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

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

// The file a command writes with -o (or --emit-jobs, --emit-slurm, sweep.json, sweep.csv), by what
// is at `path` once its symlinks are followed (a symlink stays and its target gets the content):
//  - nothing, or a regular file: written to a temporary file beside it, then renamed over it, so a
//    reader sees the old file or the new one;
//  - a character device or a FIFO (/dev/null, a named pipe), or an open file of this process
//    (/dev/stdout, /dev/fd/N, whatever the shell redirected it to): written through, never replaced;
//  - anything else (a folder, a block device, a socket): refused.
// A target that is one of `inputs` (same device and inode) is refused: the command would destroy
// what it reads. Throws OutputError naming `shown` (how the user named the file) and the reason.
void write_output(const std::filesystem::path& path, const std::string& content, const std::string& shown,
                  const std::vector<std::filesystem::path>& inputs = {});

// What write_output would write: the file a regular target's rename replaces, or the path to
// write through. Throws the same OutputError write_output would, before anything is written
// (a command checks its -o before its work).
struct OutputTarget {
  std::filesystem::path path;
  bool write_through = false;
};
OutputTarget check_output(const std::filesystem::path& path, const std::string& shown,
                          const std::vector<std::filesystem::path>& inputs = {});

// `path` with its symlinks followed, also a dangling one (to where it points) and a chain of them
// (at most 40 links); a path through a missing folder stays as it is from there. Throws OutputError
// naming `shown` for a symlink loop.
std::filesystem::path follow_symlinks(const std::filesystem::path& path, const std::string& shown);

// The errno of the last failed call, as an error code (its message is the errno text).
inline std::error_code last_error() { return {errno, std::generic_category()}; }

}  // namespace edgetrain::report
