// Shared helpers of the sweep tests: the tiny base scenario and a fresh temporary folder.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace sweep_test {

namespace fs = std::filesystem;

inline const fs::path kBase = fs::path(EDGETRAIN_SOURCE_DIR) / "tests/sweep/data/tiny.json";

// A fresh folder under the system temp dir, removed at scope exit.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(fs::temp_directory_path() / ("edgetrain-sweep-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path write(const std::string& rel, const std::string& content) const {
    const fs::path p = path_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }

 private:
  fs::path path_;
};

}  // namespace sweep_test
