// The memory estimate end to end: a scenario far beyond the machine is refused before anything
// large is allocated, in validate and run alike, with the estimate in the message; for normal
// scenarios the estimate is within a factor of the peak RSS a real run reaches (an accuracy
// check of the estimator, measured with the child's getrusage; nothing is timed).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cli_helpers.hpp"

using namespace test;

namespace {

struct Measured {
  int status = -1;
  double peak_rss_bytes = 0;
  std::string out, err;
};

// Runs edgetrain ARGS (no shell) and reports its exit status and peak resident set size. With
// `data_limit_bytes`, the child's RLIMIT_DATA is set to it: allocations beyond fail as they
// would on a machine whose memory ran out after the estimate was checked.
Measured run_measured(const std::vector<std::string>& args, const std::string& tag, rlim_t data_limit_bytes = 0) {
  const fs::path dir = fresh_dir("mem-" + tag);
  std::vector<std::string> all{EDGETRAIN_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string out = (dir / "out").string(), err = (dir / "err").string();
  Measured m;
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644),
              e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    if (data_limit_bytes > 0) {
      const rlimit limit{data_limit_bytes, data_limit_bytes};
      setrlimit(RLIMIT_DATA, &limit);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  if (pid > 0) {
    int raw = 0;
    rusage usage{};
    wait4(pid, &raw, 0, &usage);
    m.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    m.peak_rss_bytes = static_cast<double>(usage.ru_maxrss) * 1024;  // kB on Linux
  }
  m.out = slurp(out);
  m.err = slurp(err);
  return m;
}

// The estimate `validate` prints: "memory: needs about 312 MB (...".
double printed_estimate(const std::string& validate_out) {
  const std::string key = "memory: needs about ";
  const size_t at = validate_out.find(key);
  REQUIRE(at != std::string::npos);
  double value = 0;
  char unit[8] = {};
  REQUIRE(std::sscanf(validate_out.c_str() + at + key.size(), "%lf %7s", &value, unit) == 2);
  const std::string u = unit;
  const double scale = u == "kB" ? 1e3 : u == "MB" ? 1e6 : u == "GB" ? 1e9 : u == "TB" ? 1e12 : 1;
  return value * scale;
}

const std::string kScenario = (kData / "two-devices.json").string();

// MemAvailable of /proc/meminfo, in bytes.
double available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kb = 0;
  while (meminfo >> key >> kb && key != "MemAvailable:") meminfo.ignore(256, '\n');
  return kb * 1024;
}

}  // namespace

TEST_CASE("memory: a scenario needing terabytes is refused with the estimate, before allocating") {
  // 16 hidden layers of 65536 (each within the schema's bounds): 6.4e10 parameters, 258 GB per
  // model-sized vector.
  std::string hidden = "[65536";
  for (int i = 1; i < 16; ++i) hidden += ",65536";
  hidden += "]";
  for (const char* command : {"validate", "run"}) {
    CAPTURE(command);
    const fs::path out = fresh_dir("mem-refused-out");
    std::vector<std::string> args{command, kScenario, "--set", "model.hidden=" + hidden};
    if (std::string(command) == "run") args.insert(args.end(), {"--quiet", "--out", out.string()});
    const Measured m = run_measured(args, "refused");
    CHECK(m.status == 2);
    CHECK(m.err.find("edgetrain: scenario needs about ") == 0);
    CHECK(m.err.find("(model 6.443e+10 parameters x ") != std::string::npos);
    CHECK(m.err.find(" are available; training.compute \"timing-only\" charges") != std::string::npos);
    CHECK(std::count(m.err.begin(), m.err.end(), '\n') == 1);
    CHECK(m.peak_rss_bytes < 1e9);  // nothing of the model or its data was allocated
    CHECK_FALSE(fs::exists(out / "summary.json"));
  }
  // Data alone: 10^8 synthetic samples of 784 floats.
  const Measured data = run_measured(
      {"validate", kScenario, "--set", "dataset.train_samples=100000000", "--set", "dataset.shape=[1,28,28]"}, "data");
  CHECK(data.status == 2);
  CHECK(data.err.find("; data 317 GB") != std::string::npos);
}

namespace {

// The estimate for `sets` against the peak RSS of a real run of it.
void check_estimate(const std::string& tag, const std::vector<std::string>& sets) {
  std::vector<std::string> validate{"validate", kScenario};
  validate.insert(validate.end(), sets.begin(), sets.end());
  const Measured v = run_measured(validate, tag + "-validate");
  INFO(v.err);
  REQUIRE(v.status == 0);
  const double estimate = printed_estimate(v.out);
  const fs::path out = fresh_dir("mem-run-" + tag);
  std::vector<std::string> run{"run", kScenario, "--quiet", "--out", out.string()};
  run.insert(run.end(), sets.begin(), sets.end());
  const Measured r = run_measured(run, tag + "-run");
  INFO(r.err);
  REQUIRE(r.status == 0);
  MESSAGE(tag << ": estimate " << estimate / 1e6 << " MB, peak RSS " << r.peak_rss_bytes / 1e6 << " MB, ratio "
              << estimate / r.peak_rss_bytes);
  CHECK(estimate >= 0.5 * r.peak_rss_bytes);
  CHECK(estimate <= 3.0 * r.peak_rss_bytes);
}

}  // namespace

TEST_CASE("memory: the estimate is within 0.5x-3x of a real run's peak RSS") {
  check_estimate("small", {});  // the program itself dominates
  // The data dominates: 60,000 + 10,000 synthetic 28x28 samples.
  check_estimate("data", {"--set", "dataset.train_samples=60000", "--set", "dataset.shape=[1,28,28]", "--set",
                          "eval.test_samples=10000", "--set", "stop.rounds=3"});
  // The model dominates: an mlp 64-2048-2048-4 (4.3 M parameters), momentum, three devices.
  check_estimate("model", {"--set", "model.hidden=[2048,2048]", "--set", "training.momentum=0.9", "--set",
                           "devices=[\"dev-a\",\"dev-b\",{\"host\":\"dev-b\",\"name\":\"b2\"}]", "--set",
                           "eval.test_samples=100", "--set", "stop.rounds=3"});
}

TEST_CASE("memory: an allocation that still fails while setting up is one line naming the phase") {
  // 10^6 synthetic 28x28 samples (3.1 GB of features) pass the estimate on a machine with that
  // much available, but the child may hold only 1.5 GB of data: the dataset cannot be built.
  if (available_bytes() < 4e9) {
    MESSAGE("less than 4 GB available: the estimate itself would refuse this scenario");
    return;
  }
  const Measured m = run_measured({"run", kScenario, "--quiet", "--out", fresh_dir("mem-oom-out").string(), "--set",
                                   "dataset.train_samples=1000000", "--set", "dataset.shape=[1,28,28]"},
                                  "oom", rlim_t{1500} << 20);
  CHECK(m.status == 2);
  CHECK(m.err == "edgetrain: out of memory while loading the dataset\n");
}

TEST_CASE("memory: a fleet too big for a host per device, whose rounds pick few, is refused naming population slots") {
  // A million devices, 1,000 a round, timing-only, each on a host of its own: at least 12.6 GB (as activities).
  // Where that much is available (a 24 GB machine), the fleet is generated, loaded and checked instead (two
  // minutes): said, and not run.
  if (available_bytes() > 12.6e9) {
    MESSAGE("skipped: this machine has the memory for a million hosts as activities");
    return;
  }
  const std::string plan = (kSource / "scenarios/population/plan-1m.json").string();
  const Measured m = run_measured({"validate", plan, "--set", "population=null"}, "slots-way-out");
  // Refused before the platform of a million hosts is written (it took half a minute and 3 GB).
  CHECK(m.status == 2);
  CHECK(m.err.find("1000000 devices with a host each need at least 12.6 GB but ") != std::string::npos);
  CHECK(m.err.find("; population.hosts: slots holds their records in about 720 MB") != std::string::npos);
  CHECK(std::count(m.err.begin(), m.err.end(), '\n') == 1);
  CHECK(m.peak_rss_bytes < 1e9);
}
