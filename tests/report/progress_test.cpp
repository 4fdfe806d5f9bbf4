// The progress line's text: fields by mode and back-end, the time left from the nearest stop
// condition ("?" while none bounds the run), and durations as people read them.
#include "report/progress.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

using namespace edgetrain::report;

TEST_CASE("progress: the line of a synchronous real run, of an asynchronous one, of a timing-only one") {
  const ProgressLimits sync{.pushes = false, .evaluates = true, .rounds = 300, .sim_time_s = 3600.0};
  CHECK(Progress::line({.sim_time_s = 135.25, .updates = 75, .test_accuracy = 0.81234}, sync, 1.0) ==
        "sim 135.2 s  round 75/300  test acc 0.8123  wall 1.0 s  left 3.0 s");
  CHECK(Progress::line({.sim_time_s = 0, .updates = 0, .test_accuracy = std::nullopt}, sync, 0.01) ==
        "sim 0.0 s  round 0/300  test acc -  wall 0.0 s  left ?");
  const ProgressLimits async{.pushes = true, .evaluates = true, .rounds = std::nullopt, .sim_time_s = 100.0};
  CHECK(Progress::line({.sim_time_s = 25, .updates = 1200, .test_accuracy = 0.5}, async, 75) ==
        "sim 25.0 s  push 1200  test acc 0.5000  wall 1 min 15 s  left 3 min 45 s");
  const ProgressLimits timing{.pushes = false, .evaluates = false, .rounds = 20, .sim_time_s = std::nullopt};
  CHECK(Progress::line({.sim_time_s = 7200, .updates = 10, .test_accuracy = std::nullopt}, timing, 4000) ==
        "sim 7200.0 s  round 10/20  wall 1 h 06 min  left 1 h 06 min");
}

TEST_CASE("progress: the time left follows the stop condition nearest to its end") {
  const ProgressLimits both{.pushes = false, .evaluates = true, .rounds = 100, .sim_time_s = 1000.0};
  // Rounds 10% done, simulated time 50%: the run ends at the time limit first.
  CHECK(*Progress::time_left_s({.sim_time_s = 500, .updates = 10, .test_accuracy = {}}, both, 2.0) ==
        doctest::Approx(2.0));
  CHECK(*Progress::time_left_s({.sim_time_s = 100, .updates = 80, .test_accuracy = {}}, both, 8.0) ==
        doctest::Approx(2.0));
  // Past a limit (the round in flight) nothing is left; nothing done yet, or nothing bounds it: unknown.
  CHECK(*Progress::time_left_s({.sim_time_s = 1001, .updates = 0, .test_accuracy = {}}, both, 5.0) == 0.0);
  CHECK(!Progress::time_left_s({.sim_time_s = 0, .updates = 0, .test_accuracy = {}}, both, 5.0));
  CHECK(!Progress::time_left_s({.sim_time_s = 9.9, .updates = 0, .test_accuracy = {}}, both, 0.1));  // under 1%
  CHECK(*Progress::time_left_s({.sim_time_s = 10, .updates = 0, .test_accuracy = {}}, both, 0.1) ==
        doctest::Approx(9.9));
  const ProgressLimits unbounded{.pushes = false, .evaluates = true, .rounds = {}, .sim_time_s = {}};
  CHECK(!Progress::time_left_s({.sim_time_s = 10, .updates = 10, .test_accuracy = {}}, unbounded, 1.0));
}

TEST_CASE("progress: durations") {
  CHECK(human_duration(0) == "0.0 s");
  CHECK(human_duration(9.94) == "9.9 s");
  CHECK(human_duration(42.4) == "42 s");
  CHECK(human_duration(185) == "3 min 05 s");
  CHECK(human_duration(3600) == "1 h 00 min");
  CHECK(human_duration(1e30) == "277777777777 h 46 min");  // bounded, never an overflow
}

namespace {

// What `f` writes to stderr (fd 2 sent to a file meanwhile: not a terminal, so no width limit).
template <class F>
std::string stderr_of(F&& f) {
  std::fflush(stderr);
  char path[] = "/tmp/edgetrain-progress-XXXXXX";
  const int file = ::mkstemp(path);
  REQUIRE(file >= 0);
  const int saved = ::dup(2);
  ::dup2(file, 2);
  f();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::string out(4096, '\0');
  const ssize_t n = ::pread(file, out.data(), out.size(), 0);
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  ::close(file);
  ::unlink(path);
  return out;
}

const ProgressLimits kLimits{.pushes = false, .evaluates = false, .rounds = 10, .sim_time_s = std::nullopt};

}  // namespace

TEST_CASE("progress: drawn in place, at most kRedrawsPerSecond times a second, padded, then erased") {
  const std::string drawn = stderr_of([] {
    Progress p(true, kLimits);
    p.update({.sim_time_s = 12345.6, .updates = 1, .test_accuracy = {}});  // the first draw comes at once
    p.update({.sim_time_s = 2, .updates = 2, .test_accuracy = {}});        // too soon: not drawn
    std::this_thread::sleep_for(std::chrono::milliseconds(1000 / Progress::kRedrawsPerSecond + 50));
    p.update({.sim_time_s = 3, .updates = 3, .test_accuracy = {}});  // shorter: the rest is blanked
    p.clear();
    p.clear();  // once only
  });
  const std::string first = "sim 12345.6 s  round 1/10  wall 0.0 s  left 0.0 s";
  const std::string second = "sim 3.0 s  round 3/10  wall ";
  REQUIRE(drawn.rfind("\r" + first + "\r" + second, 0) == 0);
  // The second line covers the first's length; the clear blanks what is left of the line.
  const size_t second_end = drawn.find('\r', first.size() + 2);
  REQUIRE(second_end != std::string::npos);
  CHECK(second_end - (first.size() + 2) == first.size());
  const std::string padded = drawn.substr(first.size() + 2, second_end - (first.size() + 2));
  CHECK(drawn.substr(second_end) == "\r" + std::string(padded.find_last_not_of(' ') + 1, ' ') + "\r");
}

TEST_CASE("progress: a disabled line writes nothing") {
  const std::string drawn = stderr_of([] {
    Progress off(false, kLimits);
    CHECK(!off.enabled());
    off.update({.sim_time_s = 1, .updates = 1, .test_accuracy = {}});
    off.clear();
  });
  CHECK(drawn.empty());
}

TEST_CASE("the end-of-run summary: round time when the run had rounds, bytes by level in hierarchical runs") {
  RunSummary s;
  s.status = "completed";
  s.status_reason = "stop.rounds reached";
  s.rounds = 3;
  s.sim_time_s = 30;
  s.best_test_accuracy = std::nan("");
  s.bytes_up = 5'000'000;
  s.bytes_down = 5'000'000;
  s.extra["round_s"] = nullptr;
  const std::string flat = summary_text(s, "results/x");
  CHECK(flat.find("round time") == std::string::npos);  // no round: no line
  CHECK(flat.find("bytes by level") == std::string::npos);
  s.extra["round_s"] = {{"mean", 10.0}, {"median", 9.5}, {"p95", 12.25}, {"max", 12.25}, {"count", 3}};
  s.extra["bytes_by_level"] = {
      {"device_to_site", 5'000'000}, {"site_to_device", 5'000'000}, {"site_to_cloud", 1'000'000}, {"cloud_to_site", 2'000'000}};
  const std::string hier = summary_text(s, "results/x");
  CHECK(hier.find("\nround time: mean 10.00 s, median 9.50 s, p95 12.25 s, max 12.25 s\n") != std::string::npos);
  CHECK(hier.find("\nbytes by level: device -> site 5.0 MB, site -> cloud 1.0 MB, cloud -> site 2.0 MB, "
                  "site -> device 5.0 MB\n") != std::string::npos);
}
