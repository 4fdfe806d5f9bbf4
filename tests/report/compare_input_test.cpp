// `edgetrain compare` reads results folders as untrusted input: nesting past 64 levels, a FIFO and a
// file over 16 MB in place of summary.json are one CompareError line, never a stack overflow, a
// blocked read or an unbounded one (fuzz/compare_fuzz.cpp fuzzes the same reader).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "report/compare.hpp"

using namespace edgetrain::report;
namespace fs = std::filesystem;

namespace {

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const CompareError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("compare: deep nesting, a FIFO and an oversized file are refused with one line naming the file") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK(refusal([&] { parse_run_file(deep, "r/scenario.json"); }) == "r/scenario.json: nesting deeper than 64 levels");
  CHECK(parse_run_file(std::string(64, '[') + std::string(64, ']'), "ok").is_array());
  const fs::path dir = fs::temp_directory_path() / "edgetrain-compare-input";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "scenario.json") << "{}";
  REQUIRE(::mkfifo((dir / "summary.json").c_str(), 0600) == 0);
  CHECK(refusal([&] { load_run_record(dir); }) == (dir / "summary.json").string() + ": not a regular file");
  fs::remove(dir / "summary.json");
  std::ofstream(dir / "summary.json") << "{}";
  fs::resize_file(dir / "summary.json", kMaxRunFileBytes + 1);  // sparse
  CHECK(refusal([&] { load_run_record(dir); }) ==
        (dir / "summary.json").string() + ": more than the 16 MB edgetrain reads of a results file");
}
