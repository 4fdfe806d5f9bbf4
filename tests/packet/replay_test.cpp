// The packet-level reference against what TCP must do on the simplest paths.
#include <doctest/doctest.h>

#include <cmath>

#include "packet/error.hpp"
#include "packet/replay.hpp"
#include "packet/tcp_model.hpp"

using namespace edgetrain::packet;

namespace {

// Two hosts, one link each way's share: a 10 Mbit/s link of 20 ms.
Workload two_hosts(int64_t bytes) {
  Workload w;
  w.links.push_back({"link", 10e6 / 8, 0.020});
  Transfer t;
  t.src = "a";
  t.dst = "b";
  t.bytes = bytes;
  t.route = {0};
  t.flow_end_s = 0.02 + bytes / (10e6 / 8);
  w.transfers.push_back(t);
  return w;
}

}  // namespace

TEST_CASE("a lone transfer takes the time of TCP's slow start and then the link's rate") {
  // The slow-start model (packet/tcp_model.hpp): Linux's parameters, nothing fitted; at sizes on
  // both sides of slow start's steps.
  const TcpModel model;
  for (const int64_t bytes : {12800, 20000, 96000, 100000, 104000, 407000, 1000000, 4000000}) {
    CAPTURE(bytes);
    const auto timing = replay(two_hosts(bytes));
    REQUIRE(timing.size() == 1);
    const double expected = model.lone_transfer_s(static_cast<double>(bytes), 0.020, 10e6 / 8);
    MESSAGE(bytes << " B: ns-3 " << timing[0].seconds() << " s, model " << expected << " s");
    CHECK(timing[0].seconds() == doctest::Approx(expected).epsilon(0.05));
    // Never faster than the flow model's latency + size / bandwidth.
    CHECK(timing[0].seconds() > 0.020 + bytes / (10e6 / 8));
  }
}

TEST_CASE("the replay starts a transfer when its causes have ended there, after its gap") {
  Workload w = two_hosts(100000);
  w.transfers[0].start_s = 1.0;
  Transfer back = w.transfers[0];  // b answers after 0.5 s of compute
  std::swap(back.src, back.dst);
  back.causes = {0};
  back.gap_s = 0.5;
  w.transfers.push_back(back);
  Transfer third = w.transfers[0];  // a sends again 0.25 s after the answer
  third.causes = {1};
  third.gap_s = 0.25;
  w.transfers.push_back(third);
  const auto timing = replay(w);
  REQUIRE(timing.size() == 3);
  CHECK(timing[0].start_s == doctest::Approx(1.0));
  CHECK(timing[1].start_s == doctest::Approx(timing[0].end_s + 0.5));
  CHECK(timing[2].start_s == doctest::Approx(timing[1].end_s + 0.25));
  // The same message takes the same time each way on a symmetric path, each from a fresh window.
  CHECK(timing[1].seconds() == doctest::Approx(timing[0].seconds()).epsilon(0.01));
  CHECK(timing[2].seconds() == doctest::Approx(timing[0].seconds()).epsilon(0.01));
}

TEST_CASE("flows sharing a link share its rate") {
  Workload w;
  w.links = {{"a-up", 100e6 / 8, 0.001}, {"b-up", 100e6 / 8, 0.001}, {"shared", 10e6 / 8, 0.010}};
  for (const char* from : {"a", "b"}) {
    Transfer t;
    t.src = from;
    t.dst = "server";
    t.bytes = 2000000;
    t.route = {from[0] == 'a' ? size_t{0} : size_t{1}, 2};
    w.transfers.push_back(t);
  }
  const auto timing = replay(w);
  const double both_s = 2 * 2000000 / (10e6 / 8);
  for (const auto& t : timing) {
    CHECK(t.seconds() > both_s * 0.95);  // neither gets the link to itself
    CHECK(t.seconds() < both_s * 1.3);
  }
}

TEST_CASE("what ns-3 cannot map is refused with the element's name") {
  Workload w = two_hosts(1000);
  w.links[0].sharing = Link::Sharing::fatpipe;
  CHECK_THROWS_WITH_AS(replay(w), doctest::Contains("link link: FATPIPE"), MappingError);
  w.links[0].sharing = Link::Sharing::wifi;
  CHECK_THROWS_WITH_AS(replay(w), doctest::Contains("Wi-Fi"), MappingError);
  w = two_hosts(1000);
  w.transfers[0].route.clear();
  CHECK_THROWS_WITH_AS(replay(w), doctest::Contains("has no link"), MappingError);
}

// Eight devices behind their own 100 Mbit/s access links upload (or download) 4 MB each across one
// 20 Mbit/s backbone: the contended round the issue measured ns-3 stalling on.
Workload contended_round(bool up) {
  Workload w;
  const size_t n = 8;
  for (size_t i = 0; i < n; ++i) w.links.push_back({"access" + std::to_string(i), 100e6 / 8, 0.005 + 0.002 * i});
  w.links.push_back({"backbone", 20e6 / 8, 0.020});
  for (size_t i = 0; i < n; ++i) {
    Transfer t;
    t.src = up ? "d" + std::to_string(i) : "server";
    t.dst = up ? "server" : "d" + std::to_string(i);
    t.bytes = 4000000;
    t.route = up ? std::vector<size_t>{i, n} : std::vector<size_t>{n, i};
    w.transfers.push_back(t);
  }
  return w;
}

TEST_CASE("ns-3's own timers stall a contended round, and the stalled transfer is a reference anomaly") {
  TcpSettings ns3_timers;
  ns3_timers.delayed_ack_s = 0.2;  // ns-3's default, equal to the minimum RTO
  ns3_timers.linux_rto = false;
  ns3_timers.recovery = "ns3::TcpClassicRecovery";
  const auto timing = replay(contended_round(true), ns3_timers);
  size_t anomalies = 0;
  for (const Timing& t : timing) {
    if (!is_anomaly(t)) continue;
    ++anomalies;
    MESSAGE("stalled: " << t.seconds() << " s, " << t.timeouts << " timeouts, " << t.backoff_s << " s waiting for them");
    CHECK(t.seconds() > 100);  // minutes, for a round TCP ends in seconds
    CHECK(t.timeouts > 100);
  }
  CHECK(anomalies >= 1);
}

TEST_CASE("with Linux's timers a contended round ends near the backbone's rate under every queue") {
  const double ideal_s = 8 * 4000000 / (20e6 / 8);
  for (const bool up : {true, false}) {
    for (const QueueConfig& queue : queue_spread()) {
      CAPTURE(up);
      CAPTURE(queue.name());
      TcpSettings tcp;
      tcp.queue = queue;
      double end = 0;
      for (const Timing& t : replay(contended_round(up), tcp)) {
        CHECK_FALSE(is_anomaly(t));
        end = std::max(end, t.end_s);
      }
      MESSAGE(std::string(up ? "up, " : "down, ") << queue.name() << ": round " << end << " s, ideal " << ideal_s << " s");
      CHECK(end > ideal_s);
      CHECK(end < 1.4 * ideal_s);
    }
  }
}


TEST_CASE("thousands of connections to one host all open and deliver") {
  // A secure-aggregation round's many small messages: opened at once, their SYNs overflowed the
  // server's queue, and ns-3's retries, 3 s apart for all alike, collided until the connections gave
  // up ("transfer 1719 ... never ended"). The messages themselves go one after the other here.
  Workload w;
  w.links = {{"server-link", 10e6 / 8, 0.005}};
  for (int i = 0; i < 2000; ++i) {
    Transfer t;
    t.src = "server";
    t.dst = "d" + std::to_string(i % 40);
    t.bytes = 1000;
    t.route = {0};
    t.start_s = 0.002 * i;
    w.transfers.push_back(t);
  }
  TcpSettings tcp;
  tcp.queue = queue_spread().front();  // the shallowest: 100 packets
  const auto timing = replay(w, tcp);
  REQUIRE(timing.size() == w.transfers.size());
  for (const Timing& t : timing) {
    CHECK(t.end_s > t.start_s);
    CHECK(t.timeouts == 0);
  }
}
