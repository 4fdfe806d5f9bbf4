// The device-trace files (input/trace_files.hpp): rows read, sorted and merged, and each refusal one
// line naming the key, the file and the line.
#include "input/trace_files.hpp"

#include <doctest/doctest.h>

#include "input/error.hpp"

using namespace edgetrain::input;

namespace {

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

std::string availability_error(const std::string& text) {
  return error_of([&] { parse_availability(text, "traces.availability", "on.csv"); });
}
std::string capacity_error(const std::string& text) {
  return error_of([&] { parse_capacity(text, "traces.capacity", "cap.csv"); });
}

}  // namespace

TEST_CASE("traces: an availability file gives each device its sorted, merged on intervals") {
  const AvailabilityTrace t = parse_availability(
      "device,start_s,end_s\n# comment\na,50,60\nb,0,5\n\na,10,20\na,20,30\n", "traces.availability", "on.csv");
  REQUIRE(t.devices.size() == 2);
  CHECK(t.devices[0].name == "a");
  CHECK(t.devices[0].line == 3);
  CHECK(t.devices[1].name == "b");
  REQUIRE(t.on[0].size() == 2);  // [10, 30) merged from two touching rows, then [50, 60)
  CHECK(t.on[0][0].start_s == 10);
  CHECK(t.on[0][0].end_s == 30);
  CHECK(t.on[0][1].start_s == 50);
  CHECK(t.on_s(0) == 30);
  CHECK(t.on_s(1) == 5);
}

TEST_CASE("traces: a bad availability file is one line naming the file and the row") {
  CHECK(availability_error("a,5,5\n") == "traces.availability: on.csv:1: end_s (5) must be > start_s (5)");
  CHECK(availability_error("a,0,1\na,-1,3\n") == "traces.availability: on.csv:2: start_s must be >= 0, got -1");
  CHECK(availability_error("a,0,10\nb,0,1\na,5,20\n") ==
        "traces.availability: on.csv:3: device \"a\": interval [5, 20) overlaps [0, 10) of line 1");
  CHECK(availability_error("device,start_s,end_s\na,0,x\n") ==
        "traces.availability: on.csv:2: expected \"device,start_s,end_s\" (a name and two numbers), got \"a,0,x\"");
  CHECK(availability_error("a,0,1,2\n") ==
        "traces.availability: on.csv:1: expected \"device,start_s,end_s\" (a name and two numbers), got \"a,0,1,2\"");
  CHECK(availability_error(",0,1\n") == "traces.availability: on.csv:1: the device name is empty");
  CHECK(availability_error("device,start_s,end_s\n") ==
        "traces.availability: on.csv: no rows (expected \"device,start_s,end_s\")");
  CHECK(availability_error("a,0,2e9\n") ==
        "traces.availability: on.csv:1: end_s must be <= 1e+09 s (about 31.7 years), got 2e+09");
}

TEST_CASE("traces: a capacity file has one row per device, each checked") {
  const CapacityTrace t = parse_capacity("client,compute_ms_per_sample,bandwidth_kbps\n7,162,5648.1\n9,20.5,100\n",
                                         "traces.capacity", "cap.csv");
  REQUIRE(t.rows.size() == 2);
  CHECK(t.devices[1].name == "9");
  CHECK(t.rows[0].compute_ms_per_sample == 162);
  CHECK(t.rows[0].bandwidth_kbps == 5648.1);
  CHECK(capacity_error("a,1,2\na,3,4\n") == "traces.capacity: cap.csv:2: device \"a\" already has a row (line 1)");
  CHECK(capacity_error("a,0,2\n") ==
        "traces.capacity: cap.csv:1: compute_ms_per_sample must be > 0 and <= 1e+07, got 0");
  CHECK(capacity_error("a,1,-2\n") ==
        "traces.capacity: cap.csv:1: bandwidth_kbps must be >= 0.001 (1 bit/s) and <= 1e+12, got -2");
  CHECK(capacity_error("a,1,nan\n").find("expected \"device,compute_ms_per_sample,bandwidth_kbps\"") !=
        std::string::npos);
}
