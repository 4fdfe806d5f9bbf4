// The fuzz targets of readers that take a path: the input written to a file of this process's own,
// rewritten for each input (a path per process: several fuzzers may run at once).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace fuzz {

inline std::filesystem::path scratch_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("edgetrain-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

// `data` as the file `name` of the scratch folder (sub-folders made); its path.
inline std::filesystem::path write_input(const std::string& name, const uint8_t* data, size_t size) {
  const std::filesystem::path file = scratch_dir() / name;
  std::filesystem::create_directories(file.parent_path());
  std::FILE* f = std::fopen(file.c_str(), "wb");
  if (!f) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return file;
}

}  // namespace fuzz
