// Piecewise-constant rates: Lambda and its inverse, the nominal rate, trace files and their errors.
#include "stream/rate_profile.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <random>
#include <string>

#include "stream/rates.hpp"

using namespace edgetrain::stream;
namespace fs = std::filesystem;

namespace {

// Steps with a zero-rate gap, fractional rates and a short burst.
RateProfile trace_profile() { return RateProfile::from_steps({0, 2, 5, 5.5, 9}, {10, 0, 3.7, 64.7, 0.3}); }

// A scratch directory per test process (ctest runs each test case in its own process).
struct ScratchDir {
  fs::path path = fs::temp_directory_path() / ("edgetrain-stream-test-" + std::to_string(::getpid()));
  ScratchDir() { fs::create_directories(path); }
  ~ScratchDir() { fs::remove_all(path); }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return path / name;
  }
};

// The message of the StreamError thrown by `f`, or "" if none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const StreamError& e) {
    return e.what();
  }
  return "";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TEST_CASE("cumulative and inverse round-trip on a multi-step trace") {
  const RateProfile p = trace_profile();
  CHECK(p.cumulative(0) == 0);
  CHECK(p.cumulative(2) == doctest::Approx(20));
  CHECK(p.cumulative(5) == doctest::Approx(20));
  CHECK(p.cumulative(5.5) == doctest::Approx(21.85));
  CHECK(p.cumulative(9) == doctest::Approx(21.85 + 64.7 * 3.5));
  CHECK(p.cumulative(19) == doctest::Approx(21.85 + 64.7 * 3.5 + 3));
  CHECK(p.cumulative(-1) == 0);

  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u_dist(0, 300), t_dist(0, 40);
  for (int i = 0; i < 5000; ++i) {
    const double u = u_dist(rng);
    CHECK(p.cumulative(p.inverse(u)) == doctest::Approx(u).epsilon(1e-12));
    const double t = t_dist(rng);
    if (t < 2 || t > 5) {
      CHECK(p.inverse(p.cumulative(t)) == doctest::Approx(t).epsilon(1e-12));
    } else {
      CHECK(p.inverse(p.cumulative(t)) == doctest::Approx(2).epsilon(1e-12));  // smallest t: the gap's start
    }
  }
  // Lambda is flat on the zero-rate step: the next intensity is only reached once the rate resumes.
  CHECK(p.inverse(20) == doctest::Approx(2));
  CHECK(p.inverse(20 + 1e-9) > 5);
  CHECK(p.inverse(20 + 1e-9) < 5 + 1e-9);
  CHECK(p.inverse(0) == 0);
  CHECK(p.inverse(-3) == 0);
  // The inverse is monotone, also across breakpoints.
  double last = 0;
  for (double u = 0; u < 260; u += 0.01) {
    CHECK(p.inverse(u) >= last);
    last = p.inverse(u);
  }
}

TEST_CASE("rate_at and breakpoints of a step profile") {
  const RateProfile p = trace_profile();
  CHECK(p.breakpoints() == std::vector<double>{2, 5, 5.5, 9});
  CHECK(p.rate_at(0) == 10);
  CHECK(p.rate_at(1.9) == 10);
  CHECK(p.rate_at(2) == 0);
  CHECK(p.rate_at(4.99) == 0);
  CHECK(p.rate_at(5.2) == 3.7);
  CHECK(p.rate_at(1e6) == 0.3);
  CHECK(RateProfile::constant(7).breakpoints().empty());
  CHECK(RateProfile::constant(7).cumulative(3) == 21);
  CHECK(RateProfile::constant(7).inverse(21) == 3);
}

TEST_CASE("nominal rate of constant and stepped profiles") {
  CHECK(RateProfile::constant(64.7).nominal_rate() == 64.7);
  // Steps of 10 s: the last one (rate 4) counts for 10 s too: (10 * 1 + 10 * 0 + 10 * 4) / 30.
  CHECK(RateProfile::from_steps({0, 10, 20}, {1, 0, 4}).nominal_rate() == doctest::Approx(50.0 / 30));
  // Uneven steps: mean step (2 + 6) / 2 = 4, so (2 * 3 + 6 * 1 + 4 * 5) / 12.
  CHECK(RateProfile::from_steps({0, 2, 8}, {3, 1, 5}).nominal_rate() == doctest::Approx(32.0 / 12));
}

TEST_CASE("from_steps rejects bad steps") {
  CHECK_THROWS_WITH_AS(RateProfile::from_steps({0, 1}, {1}), "rate steps: 2 times but 1 rates", StreamError);
  CHECK_THROWS_WITH_AS(RateProfile::from_steps({}, {}), "rate steps: no rate steps (expected rows \"time_s,rate\")",
                       StreamError);
  CHECK_THROWS_WITH_AS(RateProfile::from_steps({1, 2}, {1, 1}), "rate steps[0]: the first time must be 0, got 1",
                       StreamError);
  CHECK_THROWS_WITH_AS(RateProfile::from_steps({0, 3, 3}, {1, 1, 1}),
                       "rate steps[2]: times must increase strictly (3 after 3)", StreamError);
  CHECK_THROWS_WITH_AS(RateProfile::from_steps({0, 3}, {-0.5, 1}), "rate steps[0]: rate must be >= 0, got -0.5",
                       StreamError);
  CHECK_THROWS_WITH_AS(RateProfile::from_steps({0, 3}, {1, 0}),
                       "rate steps[1]: the last rate must be at least 1e-09 (it holds forever after the last time), got 0",
                       StreamError);
  CHECK_THROWS_WITH_AS(RateProfile::constant(0), "stream rate: a constant rate must be a finite number > 0, got 0",
                       StreamError);
  CHECK_THROWS_AS(RateProfile::constant(std::nan("")), StreamError);
  CHECK_THROWS_AS(RateProfile::from_steps({0, INFINITY}, {1, 1}), StreamError);
}

TEST_CASE("a trace CSV with a header parses") {
  ScratchDir dir;
  const fs::path file = dir.write("trace.csv", "time_s,rate\n0,10\n\n# a burst\n2, 0\r\n5,3.7\n 5.5 ,64.7\n9,+3e-1\n");
  const RateProfile p = RateProfile::from_trace_csv(file);
  CHECK(p.breakpoints() == std::vector<double>{2, 5, 5.5, 9});
  CHECK(p.rate_at(0) == 10);
  CHECK(p.rate_at(3) == 0);
  CHECK(p.rate_at(5.7) == 64.7);
  CHECK(p.rate_at(10) == 0.3);
  CHECK(p.cumulative(9) == doctest::Approx(trace_profile().cumulative(9)));
  // Without a header as well.
  CHECK(RateProfile::from_trace_csv(dir.write("plain.csv", "0,5\n")).nominal_rate() == 5);
}

TEST_CASE("trace CSV errors name the file and line") {
  ScratchDir dir;
  auto error = [&](const std::string& text) {
    const fs::path file = dir.write("trace.csv", text);
    const std::string msg = error_of([&] { RateProfile::from_trace_csv(file); });
    CHECK(msg.rfind(file.string(), 0) == 0);  // the message opens with the file's path
    return msg;
  };
  CHECK(ends_with(error("0,1\n5,2\n2,3\n"), "trace.csv:3: times must increase strictly (2 after 5)"));
  CHECK(ends_with(error("time_s,rate\n0,1\n5,2\n5,3\n"), "trace.csv:4: times must increase strictly (5 after 5)"));
  CHECK(ends_with(error("0,1\n1,-2\n2,3\n"), "trace.csv:2: rate must be >= 0, got -2"));
  CHECK(ends_with(error("0,1\n1,abc\n"), "trace.csv:2: expected \"time_s,rate\" (two numbers), got \"1,abc\""));
  CHECK(ends_with(error("0,1\n1,2,3\n"), "trace.csv:2: expected \"time_s,rate\" (two numbers), got \"1,2,3\""));
  CHECK(ends_with(error("0,1\n1 2\n"), "trace.csv:2: expected \"time_s,rate\" (two numbers), got \"1 2\""));
  CHECK(ends_with(error("0,1\n1,2x\n"), "trace.csv:2: expected \"time_s,rate\" (two numbers), got \"1,2x\""));
  CHECK(ends_with(error("time_s,rate\n1.5,5\n2,3\n"), "trace.csv:2: the first time must be 0, got 1.5"));
  CHECK(ends_with(error("0,5\n3,0\n"),
                  "trace.csv:2: the last rate must be at least 1e-09 (it holds forever after the last time), got 0"));
  CHECK(ends_with(error("time_s,rate\n"), "trace.csv: no rate steps (expected rows \"time_s,rate\")"));
  CHECK(ends_with(error("time_s,rate\n0,1\ntime_s,rate\n"),
                  "trace.csv:3: expected \"time_s,rate\" (two numbers), got \"time_s,rate\""));

  // Rates above the maximum, steps shorter than the clock resolution, times past the longest run.
  CHECK(ends_with(error("0,1\n1,1e17\n"), "trace.csv:2: rate must be at most 1e+09, got 1e+17"));
  CHECK(
      ends_with(error("0,1\n1e-10,2\n"),
                "trace.csv:2: times must be at least 1us apart (the simulator's clock resolution), got 1e-10 after 0"));
  CHECK(ends_with(error("0,1\n2e9,2\n"),
                  "trace.csv:2: time must be at most 1e+09 s (the longest simulated time), got 2e+09"));
  const fs::path fast = dir.write("fast.csv", "0,1e12\n");
  CHECK(RateProfile::from_trace_csv(fast, "bandwidth_bps", 1e15).rate_at(0) == 1e12);  // its own maximum
  CHECK_THROWS_AS(RateProfile::from_trace_csv(fast), StreamError);

  const fs::path missing = dir.path / "missing.csv";
  CHECK(error_of([&] { RateProfile::from_trace_csv(missing); }) ==
        missing.string() + ": cannot open file (no such file)");
}

// Found by fuzz/trace_fuzz: a binary file's line went into the message whole, control bytes
// included (a NUL cut the printed message short, an escape sequence reached the terminal).
TEST_CASE("trace CSV errors quote a bad line as one short printable line") {
  using namespace std::string_literals;
  CHECK(error_of([] { RateProfile::from_trace_text("0,1\n1,\x1b[31m\0x\r\n"s, "t.csv"); }) ==
        "t.csv:2: expected \"time_s,rate\" (two numbers), got \"1,\\x1b[31m\\x00x\"");
  const std::string shown =
      error_of([] { RateProfile::from_trace_text("0,1\n" + std::string(1000, '7') + "\n", "t.csv"); });
  CHECK(shown == "t.csv:2: expected \"time_s,rate\" (two numbers), got \"" + std::string(80, '7') + "...\"");
  // The text reader and the file reader agree (from_trace_csv reads the file, then the text).
  CHECK(RateProfile::from_trace_text("time_s,rate\n0,10\n2,0\r\n5,3.7", "t.csv").breakpoints() ==
        std::vector<double>{2, 5});
}
