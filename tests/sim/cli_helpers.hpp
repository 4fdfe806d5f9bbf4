// Helpers for tests that run the edgetrain binary: each run is its own process (SimGrid
// allows one engine per process), its output folder a fresh temporary directory.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <sys/wait.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace test {

namespace fs = std::filesystem;

inline const fs::path kSource = EDGETRAIN_SOURCE_DIR;
inline const fs::path kData = kSource / "tests/sim/data";

struct Result {
  int status = -1;
  std::string out, err;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("edgetrain-test-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Runs `edgetrain ARGS` (ARGS already shell-quoted where needed).
inline Result run_cli(const std::string& args, const std::string& tag) {
  const fs::path dir = fresh_dir("cli-" + tag);
  const std::string cmd =
      std::string(EDGETRAIN_BINARY) + " " + args + " >" + (dir / "out").string() + " 2>" + (dir / "err").string();
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(dir / "out"), slurp(dir / "err")};
}

// `edgetrain run tests/sim/data/SCENARIO --quiet --out <a fresh folder> SETS`, which must succeed: the folder.
inline fs::path run_ok(const std::string& scenario, const std::string& sets, const std::string& tag) {
  const fs::path out = fresh_dir(tag);
  const Result r = run_cli("run " + (kData / scenario).string() + " --quiet --out " + out.string() + " " + sets, tag);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return out;
}

// `edgetrain run tests/sim/data/SCENARIO --quiet --out <a fresh folder> SETS`, which must be refused: exit 2 and
// one line on stderr, edgetrain's, holding `message` (no abort, no backtrace).
inline void run_refused(const std::string& scenario, const std::string& sets, const std::string& message,
                        const std::string& tag) {
  const Result r = run_cli("run " + (kData / scenario).string() + " --quiet --out " + fresh_dir(tag).string() + " " + sets, tag);
  CAPTURE(sets);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.rfind("edgetrain: ", 0) == 0);
  CHECK(r.err.find(message) != std::string::npos);
  CHECK(r.err.find("terminate") == std::string::npos);
}

// A command's output, line by line.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// One cell of a read_csv row, as a number.
inline double num(const std::map<std::string, std::string>& row, const std::string& key) {
  return std::stod(row.at(key));
}
inline int64_t count(const std::map<std::string, std::string>& row, const std::string& key) {
  return std::stoll(row.at(key));
}

// A CSV file as rows of name -> cell.
inline std::vector<std::map<std::string, std::string>> read_csv(const fs::path& p) {
  std::istringstream in(slurp(p));
  std::string line;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  auto split = [](const std::string& s) {
    std::vector<std::string> cells;
    std::stringstream ss(s);
    std::string cell;
    while (std::getline(ss, cell, ',')) cells.push_back(cell);
    return cells;
  };
  std::getline(in, line);
  header = split(line);
  while (std::getline(in, line)) {
    const auto cells = split(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < header.size() && i < cells.size(); ++i) row[header[i]] = cells[i];
    rows.push_back(row);
  }
  return rows;
}

inline nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(slurp(p)); }

}  // namespace test
