// The one bounded reader of input files (util/read_input.hpp): regular files refused by their
// size before a byte is read (a sparse file of 1 GiB + 1 byte costs no disk), streams cut at the
// bound (/dev/zero), streams refused where an input is read twice, and a FIFO without a writer
// neither blocks open() nor deafens the reader to the stop flag.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "util/read_input.hpp"
#include "util/stop_flag.hpp"

using namespace edgetrain::util;
namespace fs = std::filesystem;

namespace {

fs::path fresh(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("edgetrain-read-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

std::string error_of(const fs::path& file, const InputRule& rule) {
  try {
    read_input(file, rule);
  } catch (const ReadError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("read_input: a regular file whole, missing files and folders named") {
  const fs::path p = fresh("plain");
  std::ofstream(p, std::ios::binary) << std::string("{\"a\": 1}\n\0x", 11);
  CHECK(read_input(p, kScenarioInput) == std::string("{\"a\": 1}\n\0x", 11));
  CHECK(error_of(p.string() + "-missing", kScenarioInput) == p.string() + "-missing: cannot open file (no such file)");
  CHECK(error_of(fs::temp_directory_path(), kSweepInput) ==
        fs::temp_directory_path().string() + ": cannot open file (it is a directory)");
  fs::remove(p);
}

TEST_CASE("read_input: every input's bound, by size before reading (sparse files) and while reading (/dev/zero)") {
  const fs::path p = fresh("sparse");
  for (const InputRule* rule : {&kScenarioInput, &kSweepInput, &kPlatformInput, &kFleetInput, &kTraceInput}) {
    CAPTURE(rule->what);
    std::ofstream(p).close();
    fs::resize_file(p, rule->max_bytes + 1);
    const auto start = std::chrono::steady_clock::now();
    const std::string e = error_of(p, *rule);
    CHECK(e == p.string() + ": " + rule->what + " is larger than " + std::to_string(rule->max_bytes >> 20) +
                   " MiB (" + std::to_string(rule->max_bytes + 1) + " bytes): edgetrain reads at most that much");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(100));  // nothing was read
  }
  fs::remove(p);
  // A stream has no size: it is cut at the bound.
  CHECK(error_of("/dev/zero", kScenarioInput) ==
        "/dev/zero: the scenario file is larger than 64 MiB (a stream that goes on past it): edgetrain reads at most "
        "that much");
  CHECK(error_of("/dev/zero", kSweepInput).find("the sweep file is larger than 64 MiB") != std::string::npos);
}

TEST_CASE("read_input: the platform, fleet descriptions and traces must be regular files") {
  for (const InputRule* rule : {&kPlatformInput, &kFleetInput, &kTraceInput}) {
    CAPTURE(rule->what);
    CHECK(error_of("/dev/zero", *rule) == std::string("/dev/zero: ") + rule->what +
                                              " must be a regular file, not a pipe, FIFO or device (" + rule->regular +
                                              ")");
  }
}

TEST_CASE("read_input: a FIFO opens at once, is read to its writer's end, and a stop ends the wait") {
  const fs::path fifo = fresh("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // A writer that comes later: the reader waits for it, then reads to its end.
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::ofstream(fifo) << "{\"seed\": 3}";
  });
  CHECK(read_input(fifo, kScenarioInput) == "{\"seed\": 3}");
  writer.join();
  // No writer ever: a signal (the flag it sets) ends the wait within the poll period.
  std::thread signal([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop_flag = 1;
  });
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH_AS(read_input(fifo, kScenarioInput), ("interrupted while waiting for " + fifo.string()).c_str(),
                       Interrupted);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  signal.join();
  stop_flag = 0;
  // A FIFO where a regular file is needed: refused without waiting for a writer.
  CHECK(error_of(fifo, kPlatformInput).find("must be a regular file") != std::string::npos);
  fs::remove(fifo);
}
