// Tests' TorchScript modules, exported by tools/torchscript/export.py with Debian's python3-torch
// (as users export theirs), and any Python snippet a test needs to make a bad one.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace test {

// A folder of this test process's own.
inline std::filesystem::path export_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("edgetrain-export-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

// Runs /usr/bin/python3 with `args`; the test fails if it does.
inline void python(const std::string& args) {
  const std::string cmd = "/usr/bin/python3 " + args + " > " + (export_dir() / "python.log").string() + " 2>&1";
  INFO(cmd);
  REQUIRE(std::system(cmd.c_str()) == 0);
}

// export.py MODEL into export_dir()/NAME with `options`: the archive's path.
inline std::filesystem::path export_model(const std::string& model, const std::string& name,
                                          const std::string& options = "") {
  const auto out = export_dir() / name;
  python(std::string(EDGETRAIN_SOURCE_DIR) + "/tools/torchscript/export.py " + model + " " + out.string() + " " +
         options);
  return out;
}

// `values` as raw float32 (export.py's --weights).
inline std::filesystem::path write_raw(const std::string& name, const std::vector<float>& values) {
  const auto out = export_dir() / name;
  std::ofstream(out, std::ios::binary)
      .write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(4 * values.size()));
  return out;
}

}  // namespace test
