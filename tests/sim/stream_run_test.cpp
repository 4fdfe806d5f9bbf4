// Whole runs with data streams on tests/sim/data/two-devices.{json,xml}, checked against the
// stream and time models by hand: fluid arrivals (sample k at k/S), a sync device waiting for
// its batch, persistence vs truncation buffers, exact sample conservation under every policy,
// and ScaDLES batch sizing, weighting and learning-rate scaling.
#include <doctest/doctest.h>

#include <cmath>

#include "two_devices.hpp"

using namespace test;

namespace {

// dev-a alone (two_devices.hpp): 1 GFLOP/s, 10 ms links, 4 MB/s down and 1 MB/s up; mlp 64-16-4
// with 1108 parameters; batch 8.
const double kDown = transfer_s(kDevices[0].down), kUp = transfer_s(kDevices[0].up);
const double kCompute = compute_s(kDevices[0]), kApply = apply_s(1);
constexpr double kMessageBytes = kDenseMessage;

void check_conservation(const fs::path& out) {
  const auto devices = read_csv(out / "devices.csv");
  const auto summary = read_json(out / "summary.json");
  int64_t arrived = 0, dropped = 0;
  for (const auto& d : devices) {
    const auto a = std::stoll(d.at("samples_arrived")), t = std::stoll(d.at("samples_trained")),
               dr = std::stoll(d.at("samples_dropped")), f = std::stoll(d.at("buffer_final_samples"));
    const auto lost = std::stoll(d.at("samples_lost_in_faults")), held = std::stoll(d.at("samples_held_at_end"));
    CHECK(a == t + dr + f + lost + held);
    arrived += a;
    dropped += dr;
    // The last buffers.csv row of the device is its final state.
    std::map<std::string, std::string> last;
    for (const auto& row : read_csv(out / "buffers.csv")) {
      if (row.at("device") == d.at("device")) last = row;
    }
    CHECK(std::stoll(last.at("buffered_samples")) == f);
    CHECK(std::stoll(last.at("arrived")) == a);
    CHECK(num(last, "sim_time_s") == summary["sim_time_s"].get<double>());
  }
  CHECK(summary["samples_arrived"] == arrived);
  CHECK(summary["samples_dropped"] == dropped);
}

}  // namespace

TEST_CASE("stream: a sync device whose stream is slower than its batch starts a step every b/S seconds") {
  // S = 8 samples/s and b = 8: step k can start only when sample 8k has arrived, at k s.
  const int rounds = 5;
  const fs::path out = run_two_devices("stream-slow", "--set 'devices=[\"dev-a\"]' --set stream.rate=8 --set stop.rounds=5");
  const auto summary = read_json(out / "summary.json");
  const auto dev = read_csv(out / "devices.csv").at(0);
  // The last step starts at R*b/S; then compute, upload and the server's apply.
  CHECK(summary["sim_time_s"].get<double>() == doctest::Approx(rounds * 1.0 + kCompute + kUp + kApply).epsilon(1e-12));
  // Each step waits for data from the model's arrival until k*b/S.
  const double expected_wait = rounds * 1.0 - rounds * kDown - (rounds - 1) * (kCompute + kUp + kApply);
  CHECK(num(dev, "data_wait_s") == doctest::Approx(expected_wait).epsilon(1e-12));
  CHECK(num(dev, "data_wait_s") <= num(dev, "wait_s") + 1e-12);
  CHECK(std::stoll(dev.at("samples_arrived")) == 40);  // floor(8 * 5.0257)
  CHECK(std::stoll(dev.at("buffer_final_samples")) == 0);
  // Fluid arrivals are evenly spaced 1/8 s apart and trained FIFO just as the 8th arrives:
  // ages 7/8, 6/8, ..., 0 -> mean 7/16 s, max 7/8 s.
  CHECK(num(dev, "sample_age_mean_s") == doctest::Approx(7.0 / 16));
  CHECK(num(dev, "sample_age_max_s") == doctest::Approx(7.0 / 8));
  check_conservation(out);
}

TEST_CASE("stream: a persistence buffer grows linearly and truncation bounds it") {
  // S = 2000 samples/s, round time t = down + compute + up + apply, b = 8: (S*t - b) per step.
  const double rate = 2000, t = kDown + kCompute + kUp + kApply;
  const int rounds = 40;
  const std::string common = "--set 'devices=[\"dev-a\"]' --set stream.rate=2000 --set stop.rounds=40 ";
  const fs::path persistence = run_two_devices("stream-persist", common);
  const auto p = read_csv(persistence / "devices.csv").at(0);
  const double end = read_json(persistence / "summary.json")["sim_time_s"].get<double>();
  CHECK(end == doctest::Approx(rounds * t).epsilon(1e-12));
  CHECK(std::stoll(p.at("samples_arrived")) == static_cast<int64_t>(std::floor(rate * end)));
  CHECK(std::stod(p.at("buffer_final_samples")) == doctest::Approx((t * rate - kBatch) * rounds).epsilon(0.001));
  CHECK(std::stoll(p.at("buffer_peak_samples")) == std::stoll(p.at("buffer_final_samples")));
  check_conservation(persistence);

  const fs::path truncation =
      run_two_devices("stream-trunc", common + "--set stream.buffer.policy=truncation --set stream.buffer.window_s=0.01");
  const auto tr = read_csv(truncation / "devices.csv").at(0);
  // Keeps ceil(2000 * 0.01) = 20 samples at each step start, then a round of arrivals.
  CHECK(std::stoll(tr.at("buffer_peak_samples")) <= 20 + static_cast<int64_t>(std::ceil(rate * t)));
  CHECK(std::stoll(tr.at("samples_dropped")) > 0);
  CHECK(num(tr, "sample_age_max_s") < num(p, "sample_age_max_s"));
  check_conservation(truncation);
}

TEST_CASE("stream: every sample is accounted for under every policy with poisson arrivals") {
  for (const std::string policy : {"persistence", "truncation", "drop-oldest", "drop-newest"}) {
    CAPTURE(policy);
    const fs::path out = run_two_devices("stream-poisson-" + policy,
                                "--set 'stream={\"rate\":700,\"arrivals\":\"poisson\",\"buffer\":{\"policy\":\"" +
                                    policy + "\",\"capacity_samples\":16,\"window_s\":0.01}}' --set stop.rounds=30");
    check_conservation(out);
    const auto devices = read_csv(out / "devices.csv");
    for (const auto& d : devices) {
      if (policy.rfind("drop-", 0) == 0) CHECK(std::stoll(d.at("buffer_peak_samples")) <= 16);
      if (policy != "persistence") CHECK(std::stoll(d.at("samples_dropped")) > 0);
    }
  }
}

TEST_CASE("scadles: batch = clip(round(rate x window), batch_min, batch_max)") {
  const fs::path out = run_two_devices("scadles-batch",
                              "--set training.mode=scadles --set 'stream.rate={\"dist\":\"list\",\"values\":[3,20.4]}' "
                              "--set stop.rounds=3");
  const auto devices = read_csv(out / "devices.csv");
  CHECK(devices[0].at("batch_size") == "8");  // 3/s clipped up to batch_min
  CHECK(devices[1].at("batch_size") == "20");
  const fs::path capped =
      run_two_devices("scadles-batch-max",
             "--set training.mode=scadles --set 'stream.rate={\"dist\":\"list\",\"values\":[3,20.4]}' "
             "--set training.batch_max=10 --set training.window_s=2 --set stop.rounds=3");
  CHECK(read_csv(capped / "devices.csv")[1].at("batch_size") == "10");
}

TEST_CASE("scadles: equal streams and base batch equal to the global batch reduce it to sync") {
  // Both devices stream 8 samples/s: scadles batches are 8, weights 1/2, lr factor 16/16 = 1.
  const std::string common = "--set stream.rate=8 --set stop.rounds=8 ";
  const fs::path sync = run_two_devices("reduce-sync", common);
  const fs::path scadles =
      run_two_devices("reduce-scadles", common + "--set training.mode=scadles --set training.base_global_batch=16");
  CHECK(slurp(sync / "metrics.csv") == slurp(scadles / "metrics.csv"));
  // Halving the base batch doubles every step's learning rate: another trajectory.
  const fs::path scaled =
      run_two_devices("reduce-scaled", common + "--set training.mode=scadles --set training.base_global_batch=8");
  CHECK(slurp(sync / "metrics.csv") != slurp(scaled / "metrics.csv"));
  const fs::path unscaled =
      run_two_devices("reduce-unscaled", common +
                                    "--set training.mode=scadles --set training.base_global_batch=8 "
                                    "--set training.lr_scaling=none");
  CHECK(slurp(sync / "metrics.csv") == slurp(unscaled / "metrics.csv"));
}

TEST_CASE("injection: shared samples travel with the gradient and the next model, bytes counted") {
  // 2 devices, alpha 0.5 -> one sharer per round, beta 0.5 -> 4 of its 8 samples. A shared
  // synthetic sample is 64 fp32 values (256 bytes) plus a 4-byte label.
  const int rounds = 10;
  // Injection is part of mode scadles; 8 samples/s streams give batches of 8.
  const fs::path out = run_two_devices("injection",
                              "--set training.mode=scadles --set stream.rate=8 "
                              "--set 'training.injection={\"alpha\":0.5,\"beta\":0.5}' --set stop.rounds=10");
  const auto devices = read_csv(out / "devices.csv");
  const auto summary = read_json(out / "summary.json");
  int64_t sent = 0, received = 0;
  for (const auto& d : devices) {
    sent += std::stoll(d.at("samples_injected_sent"));
    received += std::stoll(d.at("samples_injected_received"));
  }
  CHECK(sent == rounds * 4);
  CHECK(received == (rounds - 1) * 4);  // the last round's shares are never handed out
  CHECK(summary["samples_injected"] == sent);
  CHECK(summary["bytes_injected"] == (sent + received) * 260);
  CHECK(summary["bytes_up"] == 2 * rounds * kMessageBytes + sent * 260);
  CHECK(summary["bytes_down"] == 2 * rounds * kMessageBytes + received * 260);
}

TEST_CASE("stream: a rate given only by a trace, or only by each device, runs as documented") {
  // The same stream as "a sync device whose stream is slower than its batch": 8 samples/s.
  const double expected = 5 * 1.0 + kCompute + kUp + kApply;
  const fs::path dir = fresh_dir("stream-trace-only-input");
  std::ofstream(dir / "rates.csv") << "time_s,rate\n0,8\n";
  const std::string trace = (dir / "rates.csv").string();
  for (const std::string& stream : {"{\"trace\":\"" + trace + "\"}", "{\"trace\":\"" + trace + "\",\"rate\":null}"}) {
    CAPTURE(stream);
    const fs::path out =
        run_two_devices("stream-trace-only", "--set 'devices=[\"dev-a\"]' --set 'stream=" + stream + "' --set stop.rounds=5");
    CHECK(read_json(out / "summary.json")["sim_time_s"].get<double>() == doctest::Approx(expected).epsilon(1e-12));
  }
  // Defaults without a rate; the device sets its own.
  const fs::path out = run_two_devices("stream-own-rate",
                              "--set 'stream={\"arrivals\":\"fluid\",\"buffer\":{\"policy\":\"persistence\"}}' "
                              "--set 'devices=[{\"host\":\"dev-a\",\"stream\":{\"rate\":8}}]' --set stop.rounds=5");
  CHECK(read_json(out / "summary.json")["sim_time_s"].get<double>() == doctest::Approx(expected).epsilon(1e-12));
  // A device left without one is named.
  const Result r =
      run_cli("validate " + (kData / "two-devices.json").string() +
                  " --set 'stream={\"arrivals\":\"fluid\"}' --set 'devices=[{\"host\":\"dev-a\",\"stream\":"
                  "{\"rate\":8}},{\"host\":\"dev-b\",\"name\":\"pi-3\"}]'",
              "stream-no-rate");
  CHECK(r.status == 2);
  CHECK(r.err ==
        "edgetrain: devices[1].stream.rate: required unless devices[1].stream.trace is set (device \"pi-3\" "
        "sets no rate and the defaults in stream give none)\n");
}
