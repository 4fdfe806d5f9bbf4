// Tests of the traces section: its keys and rules, and how trace rows meet devices (traces.assign).
// The files themselves: tests/input/trace_files_test.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "helpers.hpp"
#include "scenario/trace_assign.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::input;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

json with_traces(json traces) {
  json doc = minimal_doc();
  doc["traces"] = std::move(traces);
  doc["training"]["round_timeout_s"] = 30;
  return doc;
}

// traces.assign over trace devices t0..t(m-1) of the given merits, for devices d0..d(n-1).
std::vector<std::optional<size_t>> assigned(const std::string& assign, const std::vector<double>& merit,
                                            const std::vector<int64_t>& samples, uint64_t seed = 7) {
  static std::vector<TraceDevice> trace;
  trace.clear();
  for (size_t k = 0; k < merit.size(); ++k) trace.push_back({"t" + std::to_string(k), static_cast<int>(k + 2)});
  AssignInput in;
  in.assign = assign;
  in.where = "traces.capacity: cap.csv";
  in.seed_tag = "traces-capacity";
  in.seed = seed;
  in.trace = &trace;
  in.merit = merit;
  for (size_t i = 0; i < samples.size(); ++i) in.devices.push_back("d" + std::to_string(i));
  in.samples = samples;
  return assign_trace(in);
}

}  // namespace

TEST_CASE("traces: keys load into typed fields, with their defaults") {
  TempDir dir;
  CHECK(!parse_in(dir, minimal_doc()).traces);
  dir.write("on.csv", "device,start_s,end_s\npi-1,0,10\n");
  dir.write("cap.csv", "pi-1,100,5000\n");
  const Scenario s = parse_in(dir, with_traces({{"availability", "on.csv"}, {"capacity", "cap.csv"}}));
  REQUIRE(s.traces);
  CHECK(s.traces->availability == dir / "on.csv");
  CHECK(s.traces->capacity == dir / "cap.csv");
  CHECK(s.traces->assign == "name");
  CHECK(s.traces->reference_model == "mobilenet_v2");
  CHECK(parse_in(dir, with_traces({{"capacity", "cap.csv"}, {"assign", "most-data-slowest"}})).traces->assign ==
        "most-data-slowest");
  // validate's description says where each comes from.
  CHECK(describe(s).find("traces    on times from " + (dir / "on.csv").string() + "; compute and bandwidth from " +
                         (dir / "cap.csv").string() + " (ms per sample of mobilenet_v2); assigned by name\n") !=
        std::string::npos);
}

TEST_CASE("traces: the rules across keys, each one line") {
  TempDir dir;
  dir.write("on.csv", "pi-1,0,10\n");
  dir.write("cap.csv", "pi-1,100,5000\n");
  CHECK(parse_error(dir, with_traces(json::object())) ==
        "traces: give availability (when devices are on), capacity (their speed and bandwidth), or both (or set "
        "traces to null)");
  CHECK(parse_error(dir, with_traces({{"capacity", "cap.csv"}, {"assign", "fastest"}})).rfind("traces.assign: ", 0) ==
        0);
  json doc = with_traces({{"availability", "on.csv"}});
  doc["training"].erase("round_timeout_s");
  CHECK(parse_error(dir, doc) ==
        "training.round_timeout_s: required in synchronous rounds (training.mode sync) with traces.availability "
        "(without it a round waits for every device, however long one is off)");
  doc["training"]["mode"] = "async";
  CHECK(parse_in(dir, doc).traces);  // pushes applied on arrival wait for nobody
  doc = with_traces({{"availability", "on.csv"}});
  doc["faults"] = {{"devices", {{{"device", "pi-1"}, {"off_s", {{1, 2}}}}}}};
  CHECK(parse_error(dir, doc) ==
        "traces.availability: not with faults.devices (a device's on and off times come from one of them; set "
        "faults.devices to null or put the off intervals in the trace)");
  doc = with_traces({{"capacity", "cap.csv"}});
  doc["training"]["compute_profile"] = "rpi4";
  CHECK(parse_error(dir, doc) ==
        "traces.capacity: not with training.compute_profile (the capacity trace gives each device's step time)");
}

TEST_CASE("traces: assign by name, in order, and the refusals") {
  std::vector<TraceDevice> trace = {{"pi-2", 2}, {"pi-x", 3}};
  AssignInput in;
  in.assign = "name";
  in.where = "traces.availability: on.csv";
  in.seed_tag = "traces-availability";
  in.trace = &trace;
  in.merit = {1, 2};
  in.devices = {"pi-1", "pi-2", "pi-3"};
  in.samples = {1, 1, 1};
  CHECK(error_of([&] { assign_trace(in); }) ==
        "traces.availability: on.csv:3: no device named \"pi-x\" in the scenario (traces.assign name); did you mean "
        "\"pi-1\"?");
  trace[1].name = "pi-3";
  auto out = assign_trace(in);
  CHECK(!out[0]);  // not in the trace: always on, the platform's values
  CHECK(out[1] == size_t{0});
  CHECK(out[2] == size_t{1});
  in.assign = "order";
  CHECK(error_of([&] { assign_trace(in); }) ==
        "traces.availability: on.csv: 2 devices in the trace, fewer than the scenario's 3 (traces.assign order gives "
        "each device its own)");
  out = assigned("order", {1, 2, 3, 4}, {5, 5, 5});
  CHECK(out == std::vector<std::optional<size_t>>{0, 1, 2});
}

TEST_CASE("traces: random assignment is a seeded draw without replacement") {
  const std::vector<double> merit(50, 1.0);
  const auto a = assigned("random", merit, std::vector<int64_t>(20, 1), 7);
  CHECK(a == assigned("random", merit, std::vector<int64_t>(20, 1), 7));
  CHECK(a != assigned("random", merit, std::vector<int64_t>(20, 1), 8));
  std::set<size_t> distinct;
  for (const auto& k : a) distinct.insert(k.value());
  CHECK(distinct.size() == 20);
  CHECK(*distinct.rbegin() < 50);
}

TEST_CASE("traces: most-data-fastest gives the devices with most samples the best rows, slowest the worst") {
  // Four trace devices, all drawn for four devices: merits 1 < 4 < 2 < 3 by index 0, 3, 1, 2... as given.
  const std::vector<double> merit = {1, 3, 4, 2};
  const std::vector<int64_t> samples = {10, 40, 20, 30};  // most data: d1, then d3, d2, d0
  const auto fast = assigned("most-data-fastest", merit, samples);
  CHECK(fast[1] == size_t{2});  // merit 4
  CHECK(fast[3] == size_t{1});  // merit 3
  CHECK(fast[2] == size_t{3});  // merit 2
  CHECK(fast[0] == size_t{0});  // merit 1
  const auto slow = assigned("most-data-slowest", merit, samples);
  CHECK(slow[1] == size_t{0});
  CHECK(slow[3] == size_t{3});
  CHECK(slow[2] == size_t{1});
  CHECK(slow[0] == size_t{2});
  // With more trace devices than devices, the seeded draw picks which take part, then they are ranked.
  const auto many = assigned("most-data-fastest", {5, 1, 9, 3, 7, 2, 8}, {1, 3, 2});
  std::vector<double> got;
  for (size_t i : {1, 2, 0}) got.push_back(std::vector<double>{5, 1, 9, 3, 7, 2, 8}[many[i].value()]);
  CHECK(std::is_sorted(got.rbegin(), got.rend()));
}
