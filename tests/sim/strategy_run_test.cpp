// Whole runs with strategies, defences and attacks (src/strategy) on tests/sim/data/eight-devices.json
// in mode local-sgd: FedAvg through the server-optimiser seam is the run without a strategy byte for
// byte; each strategy learns and reports its resolved section; sign-flip attackers break the mean and
// not the robust rules; a backdoor's success rate is reported; --threads changes nothing; the server's
// extra FLOPs are charged (real and timing-only alike); and what the scenario refuses, one line, exit 2.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "cli_helpers.hpp"

using namespace test;

namespace {

// mlp 64-32-4 of eight-devices.json.
constexpr double kParams = 64 * 32 + 32 + 32 * 4 + 4;  // 2212
constexpr double kServerFlops = 100e9;               // homogeneous8.xml's server: 100Gf

const std::string kLocal = "--set training.mode=local-sgd ";

// eight-devices.json in mode local-sgd for `rounds` rounds, with `sets`: the output folder.
fs::path run8(const std::string& tag, int rounds, const std::string& sets = "") {
  return run_ok("eight-devices.json", kLocal + "--set stop.rounds=" + std::to_string(rounds) + " " + sets,
                "strategy-" + tag);
}

double final_accuracy(const fs::path& out) { return read_json(out / "summary.json")["final_test_accuracy"].get<double>(); }
double sim_time(const fs::path& out) { return read_json(out / "summary.json")["sim_time_s"].get<double>(); }

// summary.json without `keys` and the wall time.
nlohmann::json summary_without(const fs::path& out, std::initializer_list<const char*> keys) {
  nlohmann::json s = read_json(out / "summary.json");
  s.erase("wall_time_s");
  for (const char* k : keys) s.erase(k);
  return s;
}

// `edgetrain run eight-devices.json` (or `file`) with `sets`, which must be refused.
void check_refused(const std::string& sets, const std::string& message, const std::string& tag,
                   const std::string& file = "eight-devices.json") {
  run_refused(file, sets, message, "strategy-err-" + tag);
}

}  // namespace

TEST_CASE("strategy run: fedavg through the seam is the run without a strategy, byte for byte") {
  const fs::path plain = run8("plain", 12), fedavg = run8("fedavg", 12, "--set strategy.kind=fedavg");
  const std::string metrics = slurp(plain / "metrics.csv");
  CHECK(!metrics.empty());
  CHECK(metrics == slurp(fedavg / "metrics.csv"));
  CHECK(slurp(plain / "devices.csv") == slurp(fedavg / "devices.csv"));
  CHECK(summary_without(plain, {}) == summary_without(fedavg, {"strategy"}));
  CHECK_FALSE(read_json(plain / "summary.json").contains("strategy"));
  CHECK(read_json(fedavg / "summary.json")["strategy"] == nlohmann::json{{"kind", "fedavg"}, {"personal_test_samples", nullptr}});
  // Without an attack: no attack_success column, no attack section.
  CHECK(lines_of(metrics).at(0).find("attack_success") == std::string::npos);
  CHECK_FALSE(read_json(plain / "summary.json").contains("attack"));
  CHECK_FALSE(read_json(plain / "summary.json").contains("defence"));
}

TEST_CASE("strategy run: fedprox with one local step is fedavg (the proximal term is 0 at a round's first step)") {
  const fs::path fedavg = run8("prox-1-avg", 12, "--set training.local_steps=1");
  const fs::path prox = run8("prox-1", 12, "--set training.local_steps=1 --set strategy.kind=fedprox --set strategy.mu=5");
  CHECK(slurp(prox / "metrics.csv") == slurp(fedavg / "metrics.csv"));
  CHECK(read_json(prox / "summary.json")["strategy"] == nlohmann::json{{"kind", "fedprox"}, {"mu", 5.0}});
  // With the default 5 local steps, a strong proximal term changes what is learnt.
  const fs::path avg5 = run8("prox-5-avg", 6), prox5 = run8("prox-5", 6, "--set strategy.kind=fedprox --set strategy.mu=5");
  CHECK(slurp(prox5 / "metrics.csv") != slurp(avg5 / "metrics.csv"));
}

TEST_CASE("strategy run: fedavgm, fedyogi, fedadagrad and fedprox learn and report their resolved section") {
  // Measured after 30 rounds (seed 11): fedavg 0.9425, fedavgm 0.9475, fedyogi 0.95, fedadagrad 0.9425,
  // fedprox 0.94; chance is 0.25.
  const std::pair<const char*, nlohmann::json> kinds[] = {
      {"fedavgm", {{"kind", "fedavgm"}, {"server_momentum", 0.9}}},
      {"fedyogi", {{"kind", "fedyogi"}, {"server_lr", 0.01}, {"beta1", 0.9}, {"beta2", 0.99}, {"tau", 1e-3}}},
      {"fedadagrad", {{"kind", "fedadagrad"}, {"server_lr", 0.1}, {"beta1", 0.0}, {"tau", 1e-9}}},
      {"fedprox", {{"kind", "fedprox"}, {"mu", 0.01}}},
  };
  for (const auto& [kind, section] : kinds) {
    CAPTURE(kind);
    const fs::path out = run8(kind, 30, std::string("--set strategy.kind=") + kind);
    const auto summary = read_json(out / "summary.json");
    CHECK(summary["status"] == "completed");
    CHECK(summary["rounds"] == 30);
    CHECK(summary["final_test_accuracy"].get<double>() > 0.8);
    CHECK(summary["strategy"] == section);
  }
}

TEST_CASE("strategy run: fedadam learns, its moments cost the server 8 FLOPs a parameter a round, bytes unchanged") {
  const fs::path fedavg = run8("adam-ref", 30), adam = run8("fedadam", 30, "--set strategy.kind=fedadam");
  const auto summary = read_json(adam / "summary.json");
  CHECK(summary["strategy"] == nlohmann::json{{"kind", "fedadam"}, {"server_lr", 0.1}, {"beta1", 0.9},
                                              {"beta2", 0.99}, {"tau", 1e-9}});
  CHECK(summary["final_test_accuracy"].get<double>() > 0.8);  // measured 0.9325
  const auto ref = read_json(fedavg / "summary.json");
  CHECK(summary["bytes_up"] == ref["bytes_up"]);
  CHECK(summary["bytes_down"] == ref["bytes_down"]);
  // Sync rounds wait for the server's step: 30 rounds x 8 x 2212 FLOPs on 100 GFLOP/s.
  CHECK(sim_time(adam) > sim_time(fedavg));
  CHECK(sim_time(adam) - sim_time(fedavg) == doctest::Approx(30 * 8 * kParams / kServerFlops).epsilon(1e-6));
}

TEST_CASE("strategy run: sign-flip attackers collapse the mean, median, multikrum and bulyan hold") {
  // Measured after 30 rounds: mean 0.25, median 0.88, multikrum 0.94, bulyan 0.8925 (no attack: 0.9425).
  const std::string attack = "--set attack.kind=sign-flip --set attack.fraction=0.25 --set attack.scale=4 ";
  const fs::path mean = run8("signflip-mean", 30, attack);
  const auto summary = read_json(mean / "summary.json");
  CHECK(summary["attack"]["attackers"] == 2);
  CHECK(summary["attack"]["kind"] == "sign-flip");
  CHECK(summary["attack"]["scale"] == 4.0);
  CHECK(summary["attack"]["final_attack_success"].is_null());  // not a backdoor
  CHECK(final_accuracy(mean) < 0.4);
  CHECK(lines_of(slurp(mean / "metrics.csv")).at(0).find("attack_success") == std::string::npos);
  for (const char* defence : {"median", "multikrum", "bulyan"}) {
    CAPTURE(defence);
    const fs::path out = run8(std::string("signflip-") + defence, 30, attack + "--set defence.kind=" + defence);
    CHECK(final_accuracy(out) > 0.75);
    const auto s = read_json(out / "summary.json");
    CHECK(s["defence"]["kind"] == defence);
    CHECK(s["attack"]["attackers"] == 2);
  }
}

TEST_CASE("strategy run: a backdoor's success rate is in metrics.csv and summary.json") {
  // Measured after 30 rounds, 2 attackers of 8, target 2: success 0.967, test accuracy 0.9325.
  const fs::path out =
      run8("backdoor", 30, "--set attack.kind=backdoor --set attack.fraction=0.25 --set attack.target_class=2");
  const auto rows = read_csv(out / "metrics.csv");
  REQUIRE(rows.size() >= 2);
  CHECK(rows.front().count("attack_success") == 1);
  for (const auto& row : rows) {
    const double rate = num(row, "attack_success");
    CHECK(rate >= 0);
    CHECK(rate <= 1);
  }
  const auto summary = read_json(out / "summary.json");
  const double success = summary["attack"]["final_attack_success"].get<double>();
  CHECK(success >= 0);
  CHECK(success <= 1);
  CHECK(success > 0.6);
  CHECK(success == num(rows.back(), "attack_success"));
  CHECK(summary["attack"]["attackers"] == 2);
  CHECK(summary["attack"]["target_class"] == 2);
  CHECK(summary["attack"]["poison_fraction"] == 0.5);
  CHECK(final_accuracy(out) > 0.8);  // the main task still learnt
}

TEST_CASE("strategy run: --threads 1 and 4 give the same bytes under attacks, krum and fedadam") {
  for (const char* attack : {"noise", "backdoor"}) {
    CAPTURE(attack);
    const std::string sets = kLocal + "--set stop.rounds=20 --set attack.kind=" + attack +
                             " --set attack.fraction=0.25 --set defence.kind=krum --set strategy.kind=fedadam";
    std::vector<fs::path> outs;
    for (const int threads : {1, 4}) {
      const std::string tag = "strategy-threads-" + std::string(attack) + "-" + std::to_string(threads);
      const fs::path out = fresh_dir(tag);
      const Result r = run_cli("run " + (kData / "eight-devices.json").string() + " --quiet --out " + out.string() +
                                   " --threads " + std::to_string(threads) + " " + sets,
                               tag);
      INFO(r.err);
      REQUIRE(r.status == 0);
      outs.push_back(out);
    }
    for (const char* f : {"metrics.csv", "devices.csv", "rounds.csv"}) {
      CAPTURE(f);
      const std::string one = slurp(outs[0] / f);
      CHECK(!one.empty());
      CHECK(one == slurp(outs[1] / f));
    }
    CHECK(summary_without(outs[0], {}) == summary_without(outs[1], {}));
  }
}

TEST_CASE("strategy run: krum's comparisons are charged to the server, timing-only as in a real run") {
  const std::string timing = "--set training.compute=timing-only ";
  const fs::path plain = run8("timing-plain", 30, timing);
  const fs::path krum = run8("timing-krum", 30, timing + "--set defence.kind=krum");
  const auto summary = read_json(krum / "summary.json");
  CHECK(summary["status"] == "completed");
  CHECK(summary["rounds"] == 30);
  CHECK(summary["defence"]["kind"] == "krum");
  CHECK(sim_time(krum) > sim_time(plain));
  // 8 updates a round: 1.5 n (n - 1) d + n d FLOPs on the 100 GFLOP/s server, 30 rounds.
  const double per_round = 1.5 * 8 * 7 * kParams + 8 * kParams;
  CHECK(sim_time(krum) - sim_time(plain) == doctest::Approx(30 * per_round / kServerFlops).epsilon(1e-6));
  // The real run takes the same simulated time.
  const fs::path real = run8("real-krum", 30, "--set defence.kind=krum");
  CHECK(sim_time(real) == doctest::Approx(sim_time(krum)).epsilon(1e-12));
}

TEST_CASE("strategy run: refused combinations say so in one line and exit 2") {
  check_refused("--set strategy.kind=fedadam", "strategy: needs training.mode local-sgd", "sync");
  check_refused(kLocal + "--set strategy.kind=fedavg "
                         "--set 'topology={\"kind\":\"hierarchical\",\"sites\":{\"edge\":[\"dev-a\",\"dev-b\"]}}'",
                "strategy: a strategy on the flat topology's aggregator only", "hierarchical", "hier.json");
  check_refused(kLocal + "--set strategy.kind=fedadam --set training.momentum=0.5",
                "strategy.kind: fedadam has a server optimiser of its own; set training.momentum to 0", "momentum");
  check_refused(kLocal + "--set training.aggregation=async --set defence.kind=median",
                "defence: needs synchronous rounds", "async");
  check_refused(kLocal + "--set defence.kind=median "
                         "--set 'privacy.dp={\"placement\":\"central\",\"noise_multiplier\":1,\"clip\":1}'",
                "defence: not with privacy.dp placement central", "central-dp");
  check_refused(kLocal + "--set training.compute=timing-only --set attack.kind=sign-flip --set attack.fraction=0.25",
                "attack: needs training.compute real", "timing-only");
  check_refused(kLocal + "--set attack.kind=sign-flip --set attack.fraction=0.25 --set 'attack.devices=d*'",
                "attack: give exactly one of fraction and devices (both are given)", "both");
  check_refused(kLocal + "--set attack.kind=sign-flip", "attack: give exactly one of fraction and devices", "neither");
  check_refused(kLocal + "--set attack.kind=sign-flip --set 'attack.devices=pi*'",
                "attack.devices: \"pi*\" matches no device name", "glob");
  check_refused(kLocal + "--set strategy.kind=fedavg --set strategy.server_lr=0.5",
                "strategy.server_lr: allowed only when strategy.kind is fedadam, fedyogi or fedadagrad", "server-lr");
  check_refused(kLocal + "--set defence.kind=krum --set 'privacy.secure_aggregation={}'",
                "defence: not with privacy.secure_aggregation", "secagg");
  check_refused("--set attack.kind=label-flip --set attack.fraction=0.5",
                "attack: an attack on the flat topology's aggregator only", "gossip-attack", "gossip4.json");
  check_refused(kLocal + "--set strategy.kind=fedavgm", "strategy: a strategy on the flat topology's aggregator only",
                "gossip-strategy", "gossip4.json");
  check_refused(kLocal + "--set defence.kind=norm-bound", "defence.norm_bound: required when defence.kind is norm-bound",
                "norm-bound");
  // A class the data set lacks is found once the data set is known: still one line, exit 2.
  check_refused(kLocal + "--set attack.kind=backdoor --set attack.fraction=0.25 --set attack.target_class=9",
                "attack.target_class: 9 is not a class of the data set (it has 4)", "target");
}

TEST_CASE("strategy run: SCAFFOLD's control variates double the upload and ride dense beside every model") {
  constexpr int kRounds = 10, kDevices = 8;
  constexpr double kHeader = 64;
  const fs::path fedavg = run8("scaffold-ref", kRounds), scaffold = run8("scaffold", kRounds, "--set strategy.kind=scaffold");
  const auto a = read_json(fedavg / "summary.json"), b = read_json(scaffold / "summary.json");
  const double messages = kRounds * kDevices;
  // Up: the delta and the control variate's change, both dense here, in one message (one header).
  CHECK(b["bytes_up"].get<double>() == 2 * a["bytes_up"].get<double>() - messages * kHeader);
  // Down: the model and c, dense.
  CHECK(b["bytes_down"].get<double>() == a["bytes_down"].get<double>() + messages * 4 * kParams);
  CHECK(final_accuracy(scaffold) > 0.8);
  // A device keeps c_i beside its update and local model: three model-sized vectors against FedAvg's two.
  CHECK(num(read_csv(scaffold / "devices.csv")[0], "model_memory_bytes") == 3 * 4 * kParams);
  CHECK(num(read_csv(fedavg / "devices.csv")[0], "model_memory_bytes") == 2 * 4 * kParams);
  // Compressed: both halves of the upload shrink alike (top-k 10%: a payload each, one header).
  const fs::path topk = run8("scaffold-topk", kRounds, "--set strategy.kind=scaffold --set compression.kind=topk-10%");
  const fs::path topk_ref = run8("scaffold-topk-ref", kRounds, "--set compression.kind=topk-10%");
  CHECK(read_json(topk / "summary.json")["bytes_up"].get<double>() ==
        2 * read_json(topk_ref / "summary.json")["bytes_up"].get<double>() - messages * kHeader);
  // Timing-only charges the same bytes and time, and validate says the message sizes the run sends.
  const fs::path timing = run8("scaffold-timing", kRounds,
                               "--set strategy.kind=scaffold --set compression.kind=topk-10% --set training.compute=timing-only");
  const auto t = read_json(timing / "summary.json"), r = read_json(topk / "summary.json");
  CHECK(t["bytes_up"] == r["bytes_up"]);
  CHECK(t["bytes_down"] == r["bytes_down"]);
  CHECK(t["sim_time_s"] == r["sim_time_s"]);
  const Result v = run_cli("validate " + (kData / "eight-devices.json").string() + " " + kLocal +
                               "--set strategy.kind=scaffold --set compression.kind=topk-10%",
                           "strategy-scaffold-validate");
  REQUIRE(v.status == 0);
  CHECK(v.out.find("\nstrategy  scaffold\n") != std::string::npos);  // validate names the strategy
  const auto per_message = static_cast<int64_t>(r["bytes_up"].get<double>() / messages);
  CHECK(v.out.find("SCAFFOLD adds a control variate to each: uplink " + std::to_string(per_message) + " bytes") !=
        std::string::npos);
  // Same seed, any thread count: the same bytes.
  const fs::path one = run8("scaffold-t1", 6, "--set strategy.kind=scaffold --threads 1");
  const fs::path four = run8("scaffold-t4", 6, "--set strategy.kind=scaffold --threads 4");
  CHECK(slurp(one / "metrics.csv") == slurp(four / "metrics.csv"));
}

TEST_CASE("strategy run: SCAFFOLD is refused on arrival and with privacy, one line, exit 2") {
  check_refused(kLocal + "--set strategy.kind=scaffold --set training.aggregation=async",
                "strategy.kind: scaffold needs rounds", "scaffold-async");
  check_refused(kLocal + "--set strategy.kind=scaffold --set 'privacy.dp={}'", "strategy.kind: scaffold not with privacy",
                "scaffold-dp");
}

TEST_CASE("strategy run: attackers named by a site or a class of a generated fleet") {
  // The 200 phones of platforms/fleets/phones.json (4 cells), synthetic data: 2 rounds of 10 devices.
  const fs::path dir = fresh_dir("strategy-site");
  const nlohmann::json scenario = {
      {"name", "site-attack"},
      {"seed", 3},
      {"platform", (kSource / "platforms/fleets/phones.json").string()},
      {"server", "cloud"},
      {"devices", {{"role", "device"}}},
      {"dataset", {{"name", "synthetic"}, {"train_samples", 2000}, {"shape", {1, 8, 8}}, {"classes", 4}}},
      {"model", {{"name", "mlp"}, {"hidden", {16}}}},
      {"training",
       {{"mode", "local-sgd"}, {"local_steps", 2}, {"batch_size", 8}, {"selection", {{"kind", "random"}, {"per_round", 10}}}}},
      {"eval", {{"every_s", 1000}, {"test_samples", 100}}},
      {"stop", {{"rounds", 2}}},
      {"attack", {{"kind", "sign-flip"}, {"devices", {{"site", "cell-1"}}}}}};
  const fs::path file = dir / "site.json";
  std::ofstream(file) << scenario.dump(1);
  const Result r = run_cli("run " + file.string() + " --quiet --out " + (dir / "out").string(), "strategy-site");
  INFO(r.err);
  REQUIRE(r.status == 0);
  // cell-1's devices, by the fleet's own records: its hosts in the generated platform.xml.
  const std::string platform = slurp(dir / "out" / "platform.xml");
  size_t in_cell = 0;
  for (size_t at = platform.find("<zone id=\"cell-1\""), end = platform.find("</zone>", at);
       (at = platform.find("<host id=", at + 1)) < end;)
    ++in_cell;
  const auto resolved = read_json(dir / "out" / "scenario.json")["attack"]["devices"];
  CHECK(resolved.is_array());
  CHECK(resolved.size() == in_cell);
  CHECK(read_json(dir / "out" / "summary.json")["attack"]["attackers"] == in_cell);
  // A class by a glob over the names the fleet gives its hosts, and a selector that names no host.
  const Result cls = run_cli("validate " + file.string() + " --set attack.devices=budget-*", "strategy-class");
  CHECK(cls.status == 0);
  const Result none = run_cli("validate " + file.string() + " --set 'attack.devices={\"site\": \"cell-9\"}'",
                              "strategy-site-none");
  CHECK(none.status == 2);
  CHECK(none.err.find("attack.devices: selector") != std::string::npos);
}

TEST_CASE("strategy run: compare names the strategy, the defence and the attack that differ, not only on and off") {
  const fs::path plain = run8("compare-plain", 2),
                 algo = run8("compare-algo", 2,
                             "--set strategy.kind=fedadam --set defence.kind=median --set attack.kind=noise "
                             "--set attack.fraction=0.25");
  const Result r = run_cli("compare " + plain.string() + " " + algo.string(), "strategy-compare");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("strategy       \"off\"     \"on\"") != std::string::npos);
  CHECK(r.out.find("strategy.kind  (absent)  \"fedadam\"") != std::string::npos);
  CHECK(r.out.find("defence.kind   (absent)  \"median\"") != std::string::npos);
  CHECK(r.out.find("attack.kind    (absent)  \"noise\"") != std::string::npos);
  // Two runs that both have the strategy, alike: no row for it.
  const fs::path algo2 = run8("compare-algo2", 2, "--set strategy.kind=fedadam --set strategy.server_lr=0.2");
  const fs::path algo3 = run8("compare-algo3", 2, "--set strategy.kind=fedadam");
  const Result same = run_cli("compare " + algo2.string() + " " + algo3.string(), "strategy-compare-same");
  CHECK(same.out.find("strategy.kind") == std::string::npos);
  CHECK(same.out.find("strategy.server_lr") != std::string::npos);
}

TEST_CASE("strategy run: validate's SCAFFOLD round bytes are the run's under a compressed downlink too") {
  // The downlink then sends model deltas after a device's first round, with c dense beside them: validate's
  // "a round" figure is what every round after the first moves.
  const std::string sets = "--set strategy.kind=scaffold --set compression.kind=topk-10% "
                           "--set 'compression.downlink={\"kind\":\"topk\",\"ratio\":0.1}'";
  const fs::path out = run8("scaffold-downlink", 4, sets);
  const Result v = run_cli("validate " + (kData / "eight-devices.json").string() + " " + kLocal + sets,
                           "strategy-scaffold-downlink-validate");
  REQUIRE(v.status == 0);
  const auto rounds = read_csv(out / "rounds.csv");
  REQUIRE(rounds.size() == 4);
  for (size_t r = 1; r < rounds.size(); ++r) {
    const auto bytes = count(rounds[r], "bytes_up") + count(rounds[r], "bytes_down");
    CHECK(v.out.find("a round: 8 devices picked x (uplink + downlink) = " + std::to_string(bytes) + " bytes") !=
          std::string::npos);
  }
  const fs::path timing = run8("scaffold-downlink-timing", 4, sets + " --set training.compute=timing-only");
  CHECK(slurp(timing / "rounds.csv") == slurp(out / "rounds.csv"));
}

TEST_CASE("strategy run: feddyn learns on FedAvg's bytes, keeps a gradient state per device, and needs rounds") {
  const fs::path fedavg = run8("dyn-ref", 12), dyn = run8("feddyn", 12, "--set strategy.kind=feddyn --set strategy.alpha=0.01");
  const auto a = read_json(fedavg / "summary.json"), d = read_json(dyn / "summary.json");
  CHECK(d["bytes_up"] == a["bytes_up"]);
  CHECK(d["bytes_down"] == a["bytes_down"]);
  CHECK(final_accuracy(dyn) > 0.85);
  CHECK(slurp(dyn / "metrics.csv") != slurp(fedavg / "metrics.csv"));
  CHECK(d["strategy"]["alpha"] == 0.01);
  // g_i beside the update and the local model.
  CHECK(num(read_csv(dyn / "devices.csv")[0], "model_memory_bytes") == 3 * 4 * kParams);
  // Its server step's 3 FLOPs a parameter are charged to the server: a longer run than FedAvg's.
  CHECK(sim_time(dyn) > sim_time(fedavg));
  const fs::path one = run8("dyn-t1", 6, "--set strategy.kind=feddyn --threads 1");
  const fs::path three = run8("dyn-t3", 6, "--set strategy.kind=feddyn --threads 3");
  CHECK(slurp(one / "metrics.csv") == slurp(three / "metrics.csv"));
  check_refused(kLocal + "--set strategy.kind=feddyn --set training.aggregation=async", "feddyn needs rounds", "dyn-async");
  check_refused(kLocal + "--set strategy.kind=feddyn --set training.momentum=0.9", "set training.momentum to 0", "dyn-momentum");
}

TEST_CASE("strategy run: qfedavg sends h_k beside each update, and at q 0 it is FedAvg's mean") {
  constexpr int kRounds = 10, kDevices = 8;
  const fs::path fedavg = run8("q-ref", kRounds), q0 = run8("q-0", kRounds, "--set strategy.kind=qfedavg --set strategy.q=0");
  const auto a = read_json(fedavg / "summary.json"), z = read_json(q0 / "summary.json");
  CHECK(z["bytes_up"].get<double>() == a["bytes_up"].get<double>() + kRounds * kDevices * 8);
  CHECK(z["bytes_down"] == a["bytes_down"]);
  // q 0: every update weighs the same and h_k = L, so the step is the plain mean (equal samples here: FedAvg's),
  // up to float rounding.
  CHECK(final_accuracy(q0) == doctest::Approx(final_accuracy(fedavg)).epsilon(0.02));
  const fs::path fair = run8("q-1", kRounds, "--set strategy.kind=qfedavg --set strategy.q=1");
  CHECK(slurp(fair / "metrics.csv") != slurp(q0 / "metrics.csv"));
  CHECK(final_accuracy(fair) > 0.6);
  const fs::path timing = run8("q-1-timing", kRounds, "--set strategy.kind=qfedavg --set strategy.q=1 --set training.compute=timing-only");
  CHECK(read_json(timing / "summary.json")["bytes_up"] == read_json(fair / "summary.json")["bytes_up"]);
  CHECK(read_json(timing / "summary.json")["sim_time_s"] == read_json(fair / "summary.json")["sim_time_s"]);
  const Result v = run_cli("validate " + (kData / "eight-devices.json").string() + " " + kLocal + "--set strategy.kind=qfedavg",
                           "strategy-q-validate");
  REQUIRE(v.status == 0);
  const auto per_message = static_cast<int64_t>(z["bytes_up"].get<double>() / (kRounds * kDevices));
  CHECK(v.out.find("qfedavg adds h_k (8 bytes) to each upload: " + std::to_string(per_message) + " bytes") != std::string::npos);
  const fs::path one = run8("q-t1", 4, "--set strategy.kind=qfedavg --threads 1");
  const fs::path three = run8("q-t3", 4, "--set strategy.kind=qfedavg --threads 3");
  CHECK(slurp(one / "metrics.csv") == slurp(three / "metrics.csv"));
  check_refused(kLocal + "--set strategy.kind=qfedavg --set training.aggregation=async", "qfedavg needs rounds", "q-async");
  check_refused(kLocal + "--set strategy.kind=qfedavg --set defence.kind=median", "qfedavg not with a defence", "q-defence");
  check_refused(kLocal + "--set strategy.kind=qfedavg --set 'privacy.dp={}'", "qfedavg not with privacy.dp",
                "q-dp");
}
