// Sweep files against hostile input: nesting deeper than scenarios allow (100,000 levels
// segfaulted), grids too large to expand (10^12 runs were expanded in memory), /dev/zero (read
// to the end), and a signal while a large sweep is planned (ignored for minutes).
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>

#include "../sim/cli_helpers.hpp"
#include "../sim/process_helpers.hpp"
#include "helpers.hpp"

using sweep_test::kBase;
using sweep_test::TempDir;
using test::Result;
namespace fs = std::filesystem;

namespace {

Result sweep(const TempDir& dir, const std::string& args) {
  return test::run_cli("sweep " + args + " --out " + (dir.path() / "out").string(), dir.path().filename().string());
}

}  // namespace

TEST_CASE("sweep bounds: nesting deeper than 64 levels is refused with its line and column, as in scenarios") {
  TempDir dir("bounds-deep");
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const fs::path file = dir.write("s.json", R"({"base": ")" + kBase.string() + R"(", "grid": {"seed": )" + deep + "}}");
  const Result r = sweep(dir, file.string());
  CHECK(r.status == 2);
  CHECK(r.err == "edgetrain: " + file.string() + ":1:" + std::to_string(kBase.string().size() + 93) +  // the 63rd "[" is the 65th level
                     ": nesting deeper than 64 levels\n");
}

TEST_CASE("sweep bounds: a grid of more than 10^6 runs is refused with its count before it is expanded") {
  TempDir dir("bounds-grid");
  std::string values = "[";
  for (int i = 0; i < 1000; ++i) values += (i ? "," : "") + std::to_string(i);
  values += "]";
  const fs::path file = dir.write("s.json", R"({"base": ")" + kBase.string() + R"(", "grid": {"seed": )" + values +
                                                R"(, "training.batch_size": )" + values + R"(, "training.lr": )" +
                                                values + R"(, "stop.rounds": )" + values + "}}");
  const auto start = std::chrono::steady_clock::now();
  const Result r = sweep(dir, file.string());
  CHECK(r.status == 2);
  CHECK(r.err == "edgetrain: " + file.string() +
                     ": 1e+12 runs (1000 x 1000 x 1000 x 1000), more than the 1000000 a sweep may hold: split it "
                     "into several sweeps\n");
  CHECK(test::seconds_since(start) < 10);
}

TEST_CASE("sweep bounds: a sweep file from /dev/zero is cut at 64 MiB") {
  TempDir dir("bounds-zero");
  const Result r = sweep(dir, "/dev/zero");
  CHECK(r.status == 2);
  CHECK(r.err ==
        "edgetrain: /dev/zero: the sweep file is larger than 64 MiB (a stream that goes on past it): edgetrain reads "
        "at most that much\n");
}

TEST_CASE("sweep bounds: SIGINT while 100,000 runs are planned ends the sweep at once, exit 130, nothing run") {
  TempDir dir("bounds-plan-signal");
  std::string seeds = "[";
  for (int i = 0; i < 100000; ++i) seeds += (i ? "," : "") + std::to_string(i);
  seeds += "]";
  const fs::path file = dir.write("s.json", R"({"base": ")" + kBase.string() + R"(", "grid": {"seed": )" + seeds + "}}");
  test::Child c = test::start_cli({"sweep", file.string(), "--out", (dir.path() / "out").string()}, "plan-signal");
  REQUIRE(test::wait_until([&] { return test::catches(c.pid, SIGINT) || !test::running(c); }, 60));
  std::this_thread::sleep_for(std::chrono::seconds(1));  // planning: about 5,000 runs a second
  ::kill(c.pid, SIGINT);
  const auto sent = std::chrono::steady_clock::now();
  const test::Ended e = test::wait_cli(c, 60);
  // A bound against planning on to the end (about 20 s), not a measure (CI runs tests side by side).
  CHECK(test::seconds_since(sent) < 10);
  CHECK(e.result.status == 130);
  CHECK(e.result.err.rfind("edgetrain: sweep interrupted while planning the sweep (", 0) == 0);
  CHECK(e.result.err.find("runs checked) (no run was started)\n") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path() / "out" / "runs"));
}
