// Shared helpers for the scenario tests: a temporary folder with a platform file in it, a
// minimal valid scenario document, and a way to capture a ScenarioError's message.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "scenario/load.hpp"

namespace edgetrain::scenario::testing {

// A fresh folder under the system temp dir, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("edgetrain-scenario-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
    write("platform.xml", "<?xml version='1.0'?>\n<platform version=\"4.1\"></platform>\n");
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& rel) const { return path_ / rel; }

  std::filesystem::path write(const std::string& rel, const std::string& content) const {
    const auto p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  std::filesystem::path mkdir(const std::string& rel) const {
    const auto p = path_ / rel;
    std::filesystem::create_directories(p);
    return p;
  }

 private:
  std::filesystem::path path_;
};

// The smallest valid scenario (synthetic data, needs "platform.xml" next to the scenario file).
inline nlohmann::json minimal_doc() {
  return nlohmann::json::parse(R"({
    "platform": "platform.xml",
    "server": "srv",
    "devices": ["pi-1", "pi-2"],
    "dataset": {"name": "synthetic"},
    "stop": {"rounds": 3}
  })");
}

// The ScenarioError message `f` throws, or a marker when it throws nothing (or something else).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ScenarioError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<not a ScenarioError: ") + e.what() + ">";
  }
  return "<no error>";
}

// Parses `doc` as if it were the file "scen.json" in `dir`.
inline Scenario parse_in(const TempDir& dir, const nlohmann::json& doc, const std::vector<std::string>& sets = {},
                         std::optional<uint64_t> seed = std::nullopt) {
  return parse_scenario(doc, dir / "scen.json", sets, seed);
}

// The error of parsing `doc` (in `dir`) after applying `sets`.
inline std::string parse_error(const TempDir& dir, const nlohmann::json& doc,
                               const std::vector<std::string>& sets = {}) {
  return error_of([&] { parse_in(dir, doc, sets); });
}

}  // namespace edgetrain::scenario::testing
