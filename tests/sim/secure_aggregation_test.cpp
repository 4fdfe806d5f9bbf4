// Whole runs with secure aggregation (privacy.secure_aggregation, docs/explanation/secure-aggregation.md):
// on tests/sim/data/two-devices.{json,xml}, each phase's bytes and seconds in rounds.csv and summary.json
// against figures computed here by hand from the message formats (privacy/secagg/sizes.hpp, written out
// again below), the platform's links and the operation costs, and a final model equal to the run without
// it (the masked sum was unmasked); timing-only runs with the times and bytes of real ones (secagg and
// secagg+, with a dropout); dropouts on tests/sim/data/three-devices.{json,xml} (a device switched off in
// a phase: the protocol recovers above the threshold, the round fails below it and says in which phase;
// phase_timeout_s aborts a slow device); and the scenarios refused, each with one line naming the key.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "two_devices.hpp"

using namespace test;

namespace {

const char* const kPhases[] = {"advertise", "share_keys", "masked_input", "consistency", "unmasking"};

// Message sizes without the header (privacy/secagg/sizes.hpp).
constexpr double kAdvert = 129, kSignature = 65;
double peer_adverts(double entries) { return 5 + 132 * entries; }
double sealed_shares(double peers) { return 5 + 120 * peers; }
double masked_input(double m, double bits) { return 5 + std::ceil(m * bits / 8); }
double survivors(double s) { return 5 + 4 * s; }
double peer_signatures(double entries) { return 5 + 68 * entries; }
double unmask_shares(double shares) { return 5 + 44 * shares; }

// Operation costs in FLOP-equivalents (privacy/secagg/cost.hpp's measured figures).
constexpr double kX25519 = 1.175e6, kSign = 1.133e6, kVerify = 3.127e6, kPrgElement = 424, kSealedByte = 106,
                 kMultiply = 126, kChunks = 5;
constexpr double kSharePair = 2 * 4 + 2 * 40;  // two ids and two shares, sealed

// The last cell of a rounds.csv row (read_csv leaves a trailing empty cell out).
std::string failed_phase(const std::map<std::string, std::string>& row) {
  const auto it = row.find("secagg_failed_phase");
  return it == row.end() ? std::string() : it->second;
}

std::string secagg(const std::string& json) { return "--set 'privacy.secure_aggregation=" + json + "' "; }

double cell(const std::map<std::string, std::string>& row, const std::string& phase, const char* what) {
  return num(row, "secagg_" + phase + "_" + what);
}

// Two devices, secagg, t = 2, nobody drops: what each phase moves (both directions, headers included)
// and how long it takes, device by device (down, compute, up; the slower one closes the phase).
struct TwoDevicePhases {
  std::array<double, 5> bytes{}, seconds{};
  double up = 0, down = 0;  // a round's totals, the model included
};

TwoDevicePhases two_device_phases(double field_bits = 32) {
  const double t = 2, m = kParams;
  // What the server sends each device to open the phase (the model for advertise), what it answers, and
  // the FLOPs it computes between.
  const std::array<double, 5> down = {kDenseMessage - kHeader, peer_adverts(2), sealed_shares(1), survivors(2),
                                      peer_signatures(2)};
  const std::array<double, 5> up = {kAdvert, sealed_shares(1), masked_input(m, field_bits), kSignature,
                                    unmask_shares(2)};
  const std::array<double, 5> flops = {
      3 * kX25519 + kSign,  // three key pairs, the advert signed
      kVerify + 2 * 2 * kChunks * t * kMultiply + kX25519 + kSharePair * kSealedByte,  // shares of two secrets
      kX25519 + m * 2 * kPrgElement,        // self mask and one pairwise mask
      kSign,                                // the survivors signed
      kVerify + kSharePair * kSealedByte};  // the peer's signature, its shares
  TwoDevicePhases out;
  for (size_t p = 0; p < 5; ++p) {
    // A phase's bytes: the answers, and what the server sends on when it closes (the next phase's opening
    // message; the model that opens advertise is not the protocol's).
    out.bytes[p] = 2 * (up[p] + kHeader) + (p < 4 ? 2 * (down[p + 1] + kHeader) : 0);
    out.up += 2 * (up[p] + kHeader);
    out.down += 2 * (down[p] + kHeader);
    for (const Device& d : kDevices) {
      const double train = p == 2 ? compute_s(d) : 0;  // the masked input holds the training
      const double s =
          transfer_s(d.down, down[p] + kHeader) + train + flops[p] / d.speed_flops + transfer_s(d.up, up[p] + kHeader);
      out.seconds[p] = std::max(out.seconds[p], s);
    }
  }
  // The server unmasks: two secrets reconstructed from t shares each, the two self masks expanded.
  out.seconds[4] += (2 * kChunks * t * t * kMultiply + 2 * m * kPrgElement) / 10e9;
  return out;
}

}  // namespace

TEST_CASE("secure aggregation: two devices, each phase's bytes and time by hand, the sum is recovered") {
  const fs::path plain = run_two_devices("secagg-plain");
  const fs::path out = run_two_devices("secagg-two", secagg("{\"kind\":\"secagg\"}"));
  const TwoDevicePhases expected = two_device_phases();
  // advertise 1,052, share_keys 756, masked_input 9,156, consistency 668, unmasking 314
  CHECK(expected.bytes == std::array<double, 5>{1052, 756, 9156, 668, 314});
  const auto rows = read_csv(out / "rounds.csv");
  REQUIRE(rows.size() == static_cast<size_t>(kRounds));
  const double round_s = expected.seconds[0] + expected.seconds[1] + expected.seconds[2] + expected.seconds[3] +
                         expected.seconds[4] + apply_s(2);
  for (const auto& row : rows) {
    CAPTURE(row.at("round"));
    CHECK(row.at("applied") == "1");
    CHECK(count(row, "updates") == 2);
    CHECK(count(row, "missing") == 0);
    CHECK(failed_phase(row).empty());
    for (size_t p = 0; p < 5; ++p) {
      CAPTURE(kPhases[p]);
      CHECK(cell(row, kPhases[p], "bytes") == expected.bytes[p]);
      CHECK(cell(row, kPhases[p], "s") == doctest::Approx(expected.seconds[p]).epsilon(1e-9));
    }
    CHECK(num(row, "bytes_up") == expected.up);      // 10,338
    CHECK(num(row, "bytes_down") == expected.down);  // 10,600: the model and four protocol messages each
    CHECK(num(row, "duration_s") == doctest::Approx(round_s).epsilon(1e-9));
  }
  const auto s = read_json(out / "summary.json");
  CHECK(s["status"] == "completed");
  CHECK(s["rounds"] == kRounds);
  CHECK(s["bytes_up"] == kRounds * expected.up);
  CHECK(s["bytes_down"] == kRounds * expected.down);
  CHECK(s["sim_time_s"].get<double>() == doctest::Approx(kRounds * round_s).epsilon(1e-9));
  const auto& sa = s["privacy"]["secure_aggregation"];
  CHECK(sa["kind"] == "secagg");
  CHECK(sa["field_bits"] == 32);
  CHECK(sa["rounds_failed"] == 0);
  double protocol_s = 0;
  for (size_t p = 0; p < 5; ++p) {
    CAPTURE(kPhases[p]);
    CHECK(sa["bytes_by_phase"][kPhases[p]] == kRounds * expected.bytes[p]);
    CHECK(sa["seconds_by_phase"][kPhases[p]].get<double>() ==
          doctest::Approx(kRounds * expected.seconds[p]).epsilon(1e-9));
    if (p != 2) protocol_s += kRounds * expected.seconds[p];
  }
  CHECK(sa["protocol_s"].get<double>() == doctest::Approx(protocol_s).epsilon(1e-9));
  // The devices' ledgers hold the same bytes.
  int64_t up = 0, down = 0;
  for (const auto& d : read_csv(out / "devices.csv")) {
    up += count(d, "bytes_up");
    down += count(d, "bytes_down");
  }
  CHECK(up == s["bytes_up"].get<int64_t>());
  CHECK(down == s["bytes_down"].get<int64_t>());
  // The unmasked sum is the plain sum up to quantisation (2^32 levels over [-1, 1] for two updates): the
  // model trains to the same loss; the plain run has no secagg columns nor privacy key.
  const auto p = read_json(plain / "summary.json");
  CHECK(s["final_test_loss"].get<double>() == doctest::Approx(p["final_test_loss"].get<double>()).epsilon(1e-6));
  CHECK(!p.contains("privacy"));
  CHECK(slurp(plain / "rounds.csv").find("secagg_") == std::string::npos);
}

TEST_CASE("secure aggregation: field_bits shrinks only the masked input, a coarse field still trains") {
  // 12 bits: 5 + ceil(1,108 x 12 / 8) = 1,667 bytes a masked input instead of 4,437.
  const fs::path out = run_two_devices("secagg-12bits", secagg("{\"field_bits\":12}"));
  const TwoDevicePhases wide = two_device_phases(32), narrow = two_device_phases(12);
  CHECK(narrow.bytes[2] == 2 * (1667 + kHeader) + 2 * (survivors(2) + kHeader));
  for (const auto& row : read_csv(out / "rounds.csv")) {
    for (size_t p = 0; p < 5; ++p) {
      CAPTURE(kPhases[p]);
      CHECK(cell(row, kPhases[p], "bytes") == narrow.bytes[p]);
      if (p != 2) CHECK(narrow.bytes[p] == wide.bytes[p]);
    }
    CHECK(cell(row, "masked_input", "s") == doctest::Approx(narrow.seconds[2]).epsilon(1e-9));
  }
  const auto s = read_json(out / "summary.json");
  CHECK(s["privacy"]["secure_aggregation"]["field_bits"] == 12);
  // 4,095 levels for the sum of two updates over [-1, 1]: the quantisation shows in the loss, a little.
  const double plain = read_json(run_two_devices("secagg-12bits-plain") / "summary.json")["final_test_loss"];
  CHECK(s["final_test_loss"] != plain);
  CHECK(s["final_test_loss"].get<double>() == doctest::Approx(plain).epsilon(1e-3));
}

TEST_CASE("secure aggregation: timing-only runs have the real runs' times and bytes (secagg, secagg+, a dropout)") {
  const std::string variants[] = {
      secagg("{\"kind\":\"secagg\"}"),
      secagg("{\"kind\":\"secagg+\",\"neighbours\":4}"),
      // d3 goes off while it masks its input in round 0 (7.4 s a round) and is back for round 1.
      secagg("{\"kind\":\"secagg+\",\"neighbours\":4,\"threshold\":3}") +
          "--set 'faults={\"devices\":[{\"device\":\"d3\",\"off_s\":[[4.5,5.5]]}]}' --set training.round_timeout_s=20",
  };
  int k = 0;
  for (const std::string& sets : variants) {
    CAPTURE(sets);
    const std::string tag = "secagg-tonly-" + std::to_string(k++);
    const fs::path real = run_ok("eight-devices.json", sets + " --set stop.rounds=3", tag + "-real");
    const fs::path timing =
        run_ok("eight-devices.json", sets + " --set stop.rounds=3 --set training.compute=timing-only", tag + "-tonly");
    const auto a = read_json(real / "summary.json"), b = read_json(timing / "summary.json");
    CHECK(b["compute"] == "timing-only");
    for (const char* key : {"rounds", "sim_time_s", "bytes_up", "bytes_down", "missing_updates", "failed_pushes"}) {
      CAPTURE(key);
      CHECK(a[key] == b[key]);
    }
    CHECK(a["privacy"]["secure_aggregation"] == b["privacy"]["secure_aggregation"]);
    for (const char* file : {"rounds.csv", "links.csv"}) {
      CAPTURE(file);
      CHECK(slurp(real / file) == slurp(timing / file));
    }
    // devices.csv: byte-identical without faults; with the dropout, the device that went off has ledger
    // sums that differ in the last bits between the back-ends (reported, not yet explained).
    const auto da = read_csv(real / "devices.csv"), db = read_csv(timing / "devices.csv");
    REQUIRE(da.size() == db.size());
    if (k < 3) CHECK(slurp(real / "devices.csv") == slurp(timing / "devices.csv"));
    for (size_t i = 0; i < da.size(); ++i) {
      for (const auto& [column, value] : da[i]) {
        CAPTURE(column);
        if (value.empty() || column == "device" || column == "host" || column == "class" || column == "bound") continue;
        CHECK(std::stod(value) == doctest::Approx(std::stod(db[i].at(column))).epsilon(1e-12));
      }
    }
    CHECK(a["rounds"] == 3);
    if (k == 3) CHECK(a["missing_updates"].get<int64_t>() >= 1);  // the dropout happened
  }
}

namespace {

// tests/sim/data/three-devices.json with `sets`; fast-1 is the first device in devices.csv.
fs::path run_three(const std::string& tag, const std::string& sets) { return run_ok("three-devices.json", sets, tag); }

std::string off(const char* device, double from, double to) {
  return "--set 'faults={\"devices\":[{\"device\":\"" + std::string(device) + "\",\"off_s\":[[" + std::to_string(from) +
         "," + std::to_string(to) + "]]}]}' ";
}

// Where round 0's phases close when nobody drops (read from a run without faults).
std::array<double, 5> phase_ends(const fs::path& out) {
  const auto row = read_csv(out / "rounds.csv").at(0);
  std::array<double, 5> ends{};
  double at = num(row, "start_s");
  for (size_t p = 0; p < 5; ++p) ends[p] = at += cell(row, kPhases[p], "s");
  return ends;
}

}  // namespace

TEST_CASE("secure aggregation: a device off in a phase drops out, the round recovers above the threshold") {
  const fs::path base =
      run_three("secagg-drop-base", secagg("{}") + "--set stop.rounds=1 --set training.round_timeout_s=1");
  const std::array<double, 5> ends = phase_ends(base);
  // fast-1 goes off in share_keys while it computes its shares (the peers' adverts arrive after 10.1 ms, its
  // shares leave 4.3 ms later), after it advertised.
  const double at = ends[0] + 0.012;
  const fs::path out = run_three("secagg-drop-share", secagg("{}") + off("fast-1", at, 10) +
                                                          "--set stop.rounds=1 --set training.round_timeout_s=1");
  const auto row = read_csv(out / "rounds.csv").at(0);
  CHECK(row.at("applied") == "1");
  CHECK(failed_phase(row).empty());
  CHECK(count(row, "updates") == 2);
  CHECK(count(row, "missing") == 1);
  // From share_keys on the protocol runs among two: fast-1's advert counted (and the adverts sent on to
  // all three), its shares never sent, and the server's messages after share_keys go to the two live
  // devices, each with one peer. A phase counts its answers and what the server sends on when it closes.
  CHECK(cell(row, "advertise", "bytes") == 3 * (kAdvert + kHeader) + 3 * (peer_adverts(3) + kHeader));
  CHECK(cell(row, "share_keys", "bytes") == 2 * (sealed_shares(2) + kHeader) + 2 * (sealed_shares(1) + kHeader));
  CHECK(cell(row, "masked_input", "bytes") ==
        2 * (masked_input(kParams, 32) + kHeader) + 2 * (survivors(2) + kHeader));
  CHECK(cell(row, "consistency", "bytes") == 2 * (kSignature + kHeader) + 2 * (peer_signatures(2) + kHeader));
  CHECK(cell(row, "unmasking", "bytes") == 2 * (unmask_shares(2) + kHeader));
  const auto s = read_json(out / "summary.json");
  CHECK(s["privacy"]["secure_aggregation"]["rounds_failed"] == 0);
  CHECK(s["rounds"] == 1);
  CHECK(std::isfinite(s["final_test_loss"].get<double>()));
  CHECK(count(read_csv(out / "devices.csv").at(0), "restarts") == 0);  // still off at the end
}

TEST_CASE("secure aggregation: too few left for the threshold fails the round in the phase it happened") {
  const fs::path base = run_three("secagg-fail-base",
                                  secagg("{\"threshold\":3}") + "--set stop.rounds=1 --set training.round_timeout_s=1");
  const std::array<double, 5> ends = phase_ends(base);
  struct Case {
    const char* phase;
    double at;  // fast-1 goes off then
  };
  // While it computes its shares (after advertising), and while it signs the survivors (after its masked
  // input arrived: the inputs are all there, yet the round cannot be unmasked and is not applied).
  for (const Case& c : {Case{"share_keys", ends[0] + 0.012}, Case{"consistency", ends[2] + 0.0105}}) {
    CAPTURE(c.phase);
    // Back 5 ms later, before the slow device closes the phase: the next round runs with all three.
    const fs::path out = run_three(std::string("secagg-fail-") + c.phase,
                                   secagg("{\"threshold\":3}") + off("fast-1", c.at, c.at + 0.005) +
                                       "--set stop.rounds=2 --set training.round_timeout_s=1");
    const auto rows = read_csv(out / "rounds.csv");
    REQUIRE(rows.size() >= 2);
    CHECK(rows[0].at("applied") == "0");
    CHECK(failed_phase(rows[0]) == c.phase);
    CHECK(rows[1].at("applied") == "1");
    CHECK(failed_phase(rows[1]).empty());
    CHECK(count(rows[1], "updates") == 3);
    const auto s = read_json(out / "summary.json");
    CHECK(s["privacy"]["secure_aggregation"]["rounds_failed"] == 1);
  }
}

TEST_CASE("secure aggregation: phase_timeout_s aborts a slow device and the round goes on without it") {
  // fast-1 and fast-2 advertise 10 ms + 4,496 B at 4 MB/s + 4.658 MFLOP at 1 GFLOP/s + 10 ms + 193 B at
  // 1 MB/s = 25.98 ms after the round opens; the slow device takes 46.6 ms for its keys alone. The phase
  // closes at 30 ms with the two, the slow one gets a bare header (the abort), and its late advert counts
  // in the round's uplink, not in the protocol's.
  const double fast = 0.010 + 4496 / 4e6 + 4.658e6 / 1e9 + 0.010 + 193 / 1e6;
  REQUIRE(fast < 0.03);
  const fs::path out = run_three("secagg-timeout", secagg("{\"phase_timeout_s\":0.03}") + "--set stop.rounds=2");
  for (const auto& row : read_csv(out / "rounds.csv")) {
    CAPTURE(row.at("round"));
    CHECK(row.at("applied") == "1");
    CHECK(count(row, "updates") == 2);
    CHECK(count(row, "missing") == 1);
    CHECK(cell(row, "advertise", "s") == doctest::Approx(0.03).epsilon(1e-9));
    CHECK(cell(row, "advertise", "bytes") == 2 * (kAdvert + kHeader) + kHeader + 2 * (peer_adverts(2) + kHeader));
    CHECK(cell(row, "share_keys", "bytes") == 2 * (sealed_shares(1) + kHeader) + 2 * (sealed_shares(1) + kHeader));
  }
  const auto s = read_json(out / "summary.json");
  CHECK(s["privacy"]["secure_aggregation"]["rounds_failed"] == 0);
  CHECK(s["missing_updates"] == 2);
}

TEST_CASE("secure aggregation: scenarios it cannot run exit 2 with one line naming the key") {
  const std::pair<std::string, std::string> cases[] = {
      {"two-devices.json", "--set training.mode=async " + secagg("{}")},
      {"gossip4.json", secagg("{}")},
      {"two-devices.json", secagg("{\"threshold\":3}")},
      {"eight-devices.json",
       "--set 'training.selection={\"kind\":\"random\",\"per_round\":4,\"over_selection\":0.5}' " + secagg("{}")},
      {"eight-devices.json", secagg("{\"field_bits\":2}")},
      {"eight-devices.json", secagg("{\"kind\":\"secagg+\",\"neighbours\":8}")},
  };
  const char* keys[] = {"privacy.secure_aggregation: needs synchronous rounds",
                        "privacy.secure_aggregation: needs an aggregator (topology.kind flat, or hierarchical",
                        "privacy.secure_aggregation.threshold: 3 is above the 2 devices a round selects",
                        "privacy.secure_aggregation: not with training.selection.over_selection",
                        "privacy.secure_aggregation.field_bits: 2 bits leave no level for the sum of 8 updates",
                        "privacy.secure_aggregation.neighbours: 8 is not below the 8 devices a round selects"};
  for (size_t i = 0; i < std::size(cases); ++i) {
    CAPTURE(cases[i].second);
    const fs::path out = fresh_dir("secagg-bad");
    const Result r =
        run_cli("run " + (kData / cases[i].first).string() + " --quiet --out " + out.string() + " " + cases[i].second,
                "secagg-bad");
    CHECK(r.status == 2);
    CHECK(lines_of(r.err).size() == 1);
    CHECK(r.err.rfind(std::string("edgetrain: ") + keys[i], 0) == 0);
  }
}

TEST_CASE("secure aggregation without DP trains as the plain run: nothing clipped, the same curve") {
  const fs::path plain = run_ok("eight-devices.json", "", "secagg-plain");
  const fs::path secure = run_ok("eight-devices.json", secagg("{}"), "secagg-no-dp");
  const auto s = read_json(secure / "summary.json");
  CHECK(s["privacy"]["secure_aggregation"]["clipped_coordinates"] == 0);
  CHECK(s["privacy"]["secure_aggregation"]["range"] == 10.0);
  // The protocol's phases take simulated time, so evaluations fall elsewhere: compare the final model
  // (evaluated as the last round ends). Only the fixed point's rounding (a step of 10 / 2^28 per
  // coordinate) separates the two.
  const auto a = read_csv(plain / "metrics.csv").back(), b = read_csv(secure / "metrics.csv").back();
  CHECK(num(b, "round") == num(a, "round"));
  CHECK(num(b, "test_loss") == doctest::Approx(num(a, "test_loss")).epsilon(1e-5));
  CHECK(std::fabs(num(b, "test_accuracy") - num(a, "test_accuracy")) <= 1.0 / 400);
}

TEST_CASE("secure aggregation counts and warns about every coordinate its range cut") {
  const fs::path out = fresh_dir("secagg-cut");
  const Result r = run_cli("run " + (kData / "eight-devices.json").string() + " --quiet --out " + out.string() + " " +
                               secagg("{\"range\":0.001}") + "--set stop.rounds=2",
                           "secagg-cut");
  REQUIRE(r.status == 0);
  const auto s = read_json(out / "summary.json");
  const int64_t clipped = s["privacy"]["secure_aggregation"]["clipped_coordinates"].get<int64_t>();
  CHECK(clipped > 0);
  CHECK(r.err.find("secure aggregation cut " + std::to_string(clipped) + " coordinates") != std::string::npos);
  CHECK(s["warnings"].dump().find("secure aggregation cut") != std::string::npos);
}

TEST_CASE("secure aggregation: a round timeout shorter than three round trips is refused before the run") {
  // two-devices.xml: the nearer device is 5 ms each way from the server; the protocol's key phases and
  // the model need three round trips before a masked input can arrive.
  const Result r = run_cli("validate " + (kData / "two-devices.json").string() + " " + secagg("{}") +
                               "--set training.round_timeout_s=0.001",
                           "secagg-short-timeout");
  CHECK(r.status == 2);
  CHECK(r.err.find("training.round_timeout_s: 0.001 s is shorter than any device needs to deliver its masked input") !=
        std::string::npos);
  CHECK(lines_of(r.err).size() == 1);
}
