// The bottleneck section and the fleet buffer series, from hand-made records.
#include "report/bottleneck.hpp"

#include <doctest/doctest.h>

#include "report/fleet_buffers.hpp"

using namespace edgetrain::report;

TEST_CASE("the fleet buffer series sums each device's latest row at every interval") {
  const std::vector<BufferPoint> rows = {{0.0, "a", 0, 0, 0, 0, 0},
                                         {0.0, "b", 0, 0, 0, 0, 0},
                                         {0.4, "a", 5, 50, 5, 0, 0},
                                         {1.2, "b", 7, 70, 9, 2, 0},
                                         {1.5, "a", 1, 10, 9, 8, 0}};
  const auto series = fleet_buffer_series(rows, 1.0, 1.7);
  REQUIRE(series.size() == 3);  // 0, 1 and the end
  CHECK(series[0].buffered_samples == 0);
  CHECK(series[1].sim_time_s == 1.0);
  CHECK(series[1].buffered_samples == 5);  // a at 0.4; b still at its first row
  CHECK(series[2].sim_time_s == 1.7);
  CHECK(series[2].buffered_samples == 8);
  CHECK(series[2].arrived == 18);
  CHECK(series[2].taken == 10);
  CHECK(fleet_buffer_series({}, 1.0, 5.0).empty());
}

TEST_CASE("bottleneck: links by mean utilisation, devices by what bounds them, per class") {
  std::vector<DeviceRecord> devices(3);
  devices[0].device = "pi-1";
  devices[0].device_class = "pi";
  devices[0].comm_s = 5;
  devices[1].device = "pi-2";
  devices[1].device_class = "pi";
  devices[1].compute_s = 5;
  devices[2].device = "jet-1";
  devices[2].device_class = "jet";
  devices[2].wait_s = 5;
  std::vector<LinkRow> links(3);
  links[0] = {"idle", 8e6, 0.01, 0, 0, 0, 0, {}};
  links[1] = {"thin", 8e6, 0.01, 5'000'000, 5, 6.0, 5, {}};    // 5 MB at 1 MB/s over 10 s: 0.5
  links[2] = {"wide", 80e6, 0.01, 10'000'000, 5, 2.0, 1, {}};  // 10 MB at 10 MB/s: 0.1
  std::vector<RoundRow> rounds(3);
  rounds[0].slowest_device = "pi-2";
  rounds[1].slowest_device = "pi-1";
  rounds[2].slowest_device = "pi-1";
  CriticalPath critical = slowest_device(rounds, devices);
  CHECK(critical.device == "pi-1");
  CHECK(critical.rounds == 2);
  critical.link = "thin";
  const auto j = bottleneck_json(devices, links, rounds, critical, 10.0);
  REQUIRE(j["links"].size() == 2);  // the idle link carried nothing
  CHECK(j["links"][0]["link"] == "thin");
  CHECK(j["links"][0]["mean_utilization"] == doctest::Approx(0.5));
  CHECK(j["links"][0]["busy_fraction"] == doctest::Approx(0.6));
  CHECK(j["links"][0]["utilization_when_busy"] == doctest::Approx(5.0 / 6.0));
  CHECK(j["devices"]["communication"] == 1);
  CHECK(j["devices"]["compute"] == 1);
  CHECK(j["devices"]["wait"] == 1);
  CHECK(j["by_class"]["pi"]["compute"] == 1);
  CHECK(j["by_class"]["jet"]["wait"] == 1);
  CHECK(j["critical_path"]["share_of_rounds"] == doctest::Approx(2.0 / 3.0));
  CHECK(bottleneck_json(devices, links, {}, {}, 10.0)["critical_path"].is_null());
  CHECK(j["took_no_part"] == 0);
  CHECK(j["links"][0]["sharing"] == "shared");
}

TEST_CASE("bottleneck with client selection: devices that took no part apart, the critical class and device") {
  // Six rounds over five devices: a cam class (three) and a phone class (two). cam-3 was never selected.
  std::vector<DeviceRecord> devices(5);
  const char* names[] = {"cam-1", "cam-2", "cam-3", "phone-1", "phone-2"};
  for (size_t i = 0; i < devices.size(); ++i) {
    devices[i].device = names[i];
    devices[i].device_class = i < 3 ? "cam" : "phone";
    devices[i].comm_s = 2;
    devices[i].compute_s = 1;
    devices[i].wait_s = 51;  // 50 s out of the rounds, 1 s waiting for the rounds' slowest
    devices[i].unselected_s = 50;
  }
  devices[2] = DeviceRecord{};
  devices[2].device = "cam-3";
  devices[2].device_class = "cam";
  devices[2].wait_s = 60;
  devices[2].unselected_s = 60;
  devices[0].rounds_aggregated = 3;  // cam-1: slowest of 2 of its 3 rounds
  devices[1].rounds_aggregated = 2;  // cam-2: slowest of both its rounds: the larger share wins the tie
  devices[3].rounds_aggregated = 4;  // phone-1: slowest of 2 rounds, but its class of only 2
  devices[4].rounds_aggregated = 3;
  std::vector<RoundRow> rounds(6);
  const char* slowest[] = {"cam-1", "cam-2", "phone-1", "cam-1", "cam-2", "phone-1"};
  for (size_t r = 0; r < rounds.size(); ++r) rounds[r].slowest_device = slowest[r];
  const CriticalPath critical = slowest_device(rounds, devices);
  CHECK(critical.device_class == "cam");
  CHECK(critical.class_rounds == 4);
  CHECK(critical.device == "cam-2");
  CHECK(critical.rounds == 2);
  CHECK(critical.rounds_aggregated == 2);
  const auto j = bottleneck_json(devices, {}, rounds, critical, 60.0);
  // Their time out of the rounds aside, the four that took part are communication-bound.
  CHECK(j["devices"]["communication"] == 4);
  CHECK(j["devices"]["wait"] == 0);
  CHECK(j["took_no_part"] == 1);
  CHECK(j["by_class"]["cam"]["communication"] == 2);
  CHECK(j["by_class"]["phone"]["communication"] == 2);
  CHECK(j["critical_path"]["device"] == "cam-2");
  CHECK(j["critical_path"]["rounds_taken_part"] == 2);
  CHECK(j["critical_path"]["class"] == "cam");
  CHECK(j["critical_path"]["class_rounds_slowest"] == 4);
  CHECK(j["critical_path"]["class_share_of_rounds"] == doctest::Approx(4.0 / 6.0));
  CHECK(j["critical_path"]["share_of_rounds"] == doctest::Approx(2.0 / 6.0));
}
