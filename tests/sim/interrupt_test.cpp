// Signals and failures end a run cleanly, whatever the actors are doing: a SIGINT or SIGTERM
// while the server waits on a 1 bit/s link or a starved stream (the observer meanwhile evaluating
// every eval.every_s), or during set-up, ends the run within seconds with exit 130, status
// "interrupted" and every result file; so does a SIGTERM while fleet drivers run devices as activities. (An exception inside an actor: tests/sim/actor_guard_test.cpp;
// the scenario checks now refuse every input known to make an actor throw.)
#include <doctest/doctest.h>

#include "cli_helpers.hpp"
#include "process_helpers.hpp"

using namespace test;

namespace {

// Printed by a run just before it starts simulating.
const std::string kSimulating = "edgetrain: two-devices: 2 devices";

// two-devices.xml with every link at 1 bit/s: the first model takes 36,000 simulated seconds to
// arrive, during which the observer evaluates every 0.01 s, for hours of wall time.
fs::path slow_platform(const fs::path& dir) {
  std::string xml = slurp(kData / "two-devices.xml");
  for (const char* bw : {"1MBps", "2MBps", "4MBps", "8MBps"}) {
    for (size_t at = xml.find(bw); at != std::string::npos; at = xml.find(bw)) xml.replace(at, 5, "1bps");
  }
  std::ofstream(dir / "slow.xml") << xml;
  return dir / "slow.xml";
}

std::vector<std::string> run_args(const fs::path& out, const std::vector<std::string>& sets) {
  std::vector<std::string> args = {"run", (kData / "two-devices.json").string(), "--out", out.string()};
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  return args;
}

// An interrupted run: exit 130, status interrupted, every result file, no temporary folder or lock
// left beside it, and no SimGrid actor dump.
void check_interrupted(const Ended& e, const fs::path& out) {
  INFO(e.result.err);
  INFO(e.result.out);
  CHECK_FALSE(e.timed_out);
  CHECK(e.result.status == 130);
  for (const char* f :
       {"scenario.json", "summary.json", "metrics.csv", "devices.csv", "links.csv", "staleness.csv", "buffers.csv"}) {
    CHECK(fs::exists(out / f));
  }
  if (fs::exists(out / "summary.json")) {
    const auto summary = read_json(out / "summary.json");
    CHECK(summary["status"] == "interrupted");
    CHECK(summary["status_reason"] == "interrupted by a signal");
    CHECK(read_csv(out / "metrics.csv").size() >= 1);
    CHECK(read_csv(out / "devices.csv").size() == 2);
  }
  CHECK(std::distance(fs::directory_iterator(out.parent_path()), fs::directory_iterator{}) == 1);
  CHECK(e.result.err.find("CTRL-C") == std::string::npos);
  CHECK(e.result.err.find("actors are still running") == std::string::npos);
}

// Starts a run that would last for hours, waits until it simulates (and a second more), sends
// `sig`, and returns how it ended, with the seconds from the signal to its end.
Ended interrupt_while_simulating(const std::vector<std::string>& args, const std::string& tag, int sig,
                                 double* after_signal_s) {
  Child c = start_cli(args, tag);
  REQUIRE_MESSAGE(wait_for_err(c, kSimulating, 120), slurp(c.dir / "err"));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const auto sent = std::chrono::steady_clock::now();
  ::kill(c.pid, sig);
  const Ended e = wait_cli(c, 60);
  *after_signal_s = seconds_since(sent);
  return e;
}

}  // namespace

TEST_CASE("SIGINT while a transfer crawls over a 1 bit/s link ends the run with its results") {
  const fs::path dir = fresh_dir("interrupt-slow-link");
  const fs::path out = dir / "results" / "run";
  double after = 0;
  const Ended e =
      interrupt_while_simulating(run_args(out, {"platform=" + slow_platform(dir).string(), "eval.every_s=0.01",
                                                "stop.rounds=null", "stop.sim_time_s=1e9"}),
                                 "interrupt-slow-link", SIGINT, &after);
  check_interrupted(e, out);
  // Without the stop on every clock advance this run went on for hours: a bound, not a measure.
  CHECK(after < 20);
  CHECK(read_json(out / "summary.json")["rounds"] == 0);
}

TEST_CASE("SIGTERM while devices wait for a starved stream ends the run with its results") {
  const fs::path out = fresh_dir("interrupt-starved") / "results" / "run";
  double after = 0;
  const Ended e = interrupt_while_simulating(
      run_args(out, {"stream={\"rate\":1e-6}", "eval.every_s=0.01", "stop.rounds=null", "stop.sim_time_s=1e9"}),
      "interrupt-starved", SIGTERM, &after);
  check_interrupted(e, out);
  CHECK(after < 20);
  const auto devices = read_csv(out / "devices.csv");
  for (const auto& d : devices) CHECK(count(d, "steps") == 0);
}

TEST_CASE("SIGTERM while fleet drivers wait on their devices' steps (devices as activities) ends the run cleanly") {
  // 1,000 devices of mixed speeds, 63 drivers: some always wait on a running Exec. SimGrid 3.32 resumed such a
  // driver after killing it, and the process aborted ("The Impossible Did Happen"): 7 interrupts in 10 before
  // drivers ended themselves (actor_guard.hpp).
  const std::vector<std::string> args = {"run", (kSource / "scenarios/fl/selection-all.json").string(), "--set",
                                         "training.compute=timing-only", "--set", "stop.target_accuracy=null", "--set",
                                         "stop.rounds=100000"};
  for (const double delay_s : {0.2, 0.5, 0.9, 1.4}) {
    CAPTURE(delay_s);
    const std::string tag = "interrupt-drivers-" + std::to_string(delay_s);
    const fs::path out = fresh_dir(tag) / "results" / "run";
    std::vector<std::string> with_out = args;
    with_out.insert(with_out.end(), {"--out", out.string()});
    Child c = start_cli(with_out, tag);
    REQUIRE_MESSAGE(wait_for_err(c, "edgetrain: selection-all: 1000 devices", 120), slurp(c.dir / "err"));
    std::this_thread::sleep_for(std::chrono::duration<double>(delay_s));
    ::kill(c.pid, SIGTERM);
    const Ended e = wait_cli(c, 60);
    INFO(e.result.err);
    CHECK_FALSE(e.timed_out);
    CHECK(e.result.status == 130);
    CHECK(e.result.err.find("Impossible") == std::string::npos);
    CHECK(read_json(out / "summary.json")["status"] == "interrupted");
  }
}

TEST_CASE("SIGINT during set-up, before or after SimGrid's engine exists, still ends the run cleanly") {
  // A large synthetic training set takes a second or two to generate, after the engine is made.
  const std::vector<std::string> sets = {"dataset.train_samples=1000000", "stop.rounds=null", "stop.sim_time_s=1e9"};
  for (const double delay_s : {0.0, 0.3}) {
    CAPTURE(delay_s);
    const fs::path out = fresh_dir("interrupt-setup-" + std::to_string(delay_s)) / "results" / "run";
    Child c = start_cli(run_args(out, sets), "interrupt-setup-" + std::to_string(delay_s));
    // edgetrain's handler is the first that the process installs (at the start of main).
    REQUIRE(wait_until([&] { return catches(c.pid, SIGINT) || !running(c); }, 60));
    std::this_thread::sleep_for(std::chrono::duration<double>(delay_s));
    const bool simulating = err_has(c, kSimulating);
    ::kill(c.pid, SIGINT);
    const Ended e = wait_cli(c, 120);
    check_interrupted(e, out);
    if (!simulating) CHECK(read_json(out / "summary.json")["sim_time_s"] == 0);
  }
}

TEST_CASE("SIGTERM while a TorchScript forward never returns ends the process within about a second") {
  // validate runs the module once on a batch of 2: its forward loops for ever. LibTorch cannot stop it;
  // the watchdog of the model's code ends the process, saying so.
  const fs::path dir = fresh_dir("interrupt-script");
  const fs::path py = dir / "loop.py", model = dir / "loop.pt";
  std::ofstream(py) << "import torch\nclass Loop(torch.nn.Module):\n  def __init__(s):\n    super().__init__()\n"
                       "    s.l = torch.nn.Linear(64, 4)\n  def forward(s, x):\n    y = s.l(torch.flatten(x, 1))\n"
                       "    while bool(y.sum() == y.sum()):\n      y = y + 0\n    return y\n"
                       "torch.jit.script(Loop()).save('" + model.string() + "')\n";
  REQUIRE(std::system(("/usr/bin/python3 " + py.string()).c_str()) == 0);
  Child c = start_cli({"validate", (kData / "two-devices.json").string(), "--set",
                       "model={\"name\":\"torchscript\",\"file\":\"" + model.string() + "\"}", "--set",
                       "dataset.shape=[1,8,8]"},
                      "interrupt-script");
  std::this_thread::sleep_for(std::chrono::seconds(6));  // LibTorch loaded (about a second), the forward running
  REQUIRE(running(c));
  const auto sent = std::chrono::steady_clock::now();
  ::kill(c.pid, SIGTERM);
  const Ended e = wait_cli(c, 30);
  CHECK_FALSE(e.timed_out);
  CHECK(seconds_since(sent) < 5);
  CHECK(e.result.status == 130);
  CHECK(e.result.err.find("interrupted while the model's code (model.file's forward) ran and did not return") !=
        std::string::npos);
}
