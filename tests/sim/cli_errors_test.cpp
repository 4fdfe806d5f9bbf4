// Bad input through the CLI: exit status 2 and one clear line naming what is wrong, never a
// crash or a SimGrid backtrace.
#include <doctest/doctest.h>

#include "cli_helpers.hpp"

using namespace test;

namespace {
Result run_with(const std::string& sets, const std::string& tag) {
  return run_cli(
      "run " + (kData / "two-devices.json").string() + " --quiet --out " + fresh_dir(tag).string() + " " + sets, tag);
}
}  // namespace

TEST_CASE("unknown device host names the JSON path and lists the platform's hosts") {
  const Result r = run_with("--set devices.1=nope", "unknown-host");
  CHECK(r.status == 2);
  CHECK(r.err.find("devices[1]: host \"nope\" is not in platform") != std::string::npos);
  CHECK(r.err.find("dev-a") != std::string::npos);
}

TEST_CASE("a device without a route to the server is rejected") {
  const Result r = run_with("--set devices.1=island", "no-route");
  CHECK(r.status == 2);
  CHECK(r.err.find("devices[1]: no route from host \"island\" to \"server\"") != std::string::npos);
}

TEST_CASE("unknown server host is rejected") {
  const Result r = run_with("--set server=cloud9", "unknown-server");
  CHECK(r.status == 2);
  CHECK(r.err.find("server: host \"cloud9\" is not in platform") != std::string::npos);
}

TEST_CASE("a malformed platform file is a clear error") {
  const fs::path dir = fresh_dir("bad-platform");
  std::ofstream(dir / "bad.xml") << "<?xml version=\"1.0\"?>\n<platform version=\"4.1\"><zone id=\"z\"";
  const Result r = run_with("--set platform=" + (dir / "bad.xml").string(), "bad-platform-run");
  CHECK(r.status == 2);
  CHECK(r.err.find((dir / "bad.xml").string() + ":2: not well-formed XML") != std::string::npos);
}

TEST_CASE("scenario errors name the JSON path") {
  const Result r = run_with("--set training.batch_size=-3", "bad-batch");
  CHECK(r.status == 2);
  CHECK(r.err.find("training.batch_size: must be a positive integer, got -3") != std::string::npos);
  const Result missing = run_cli("run /nonexistent/scenario.json", "missing-scenario");
  CHECK(missing.status == 2);
  CHECK(missing.err.find("/nonexistent/scenario.json") != std::string::npos);
}

TEST_CASE("usage errors exit 2 with the usage, help exits 0") {
  CHECK(run_cli("", "no-args").status == 2);
  CHECK(run_cli("frobnicate", "bad-command").err.find("unknown command") != std::string::npos);
  const Result help = run_cli("run --help", "help");
  CHECK(help.status == 0);
  CHECK(help.out.find("--set") != std::string::npos);
  CHECK(run_cli("--help", "help-top").status == 0);
}

TEST_CASE("validate checks platform, data and model and runs nothing") {
  const fs::path out = fresh_dir("validate-out");
  const Result r = run_cli("validate " + (kData / "two-devices.json").string(), "validate");
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("scenario is valid") != std::string::npos);
  CHECK(r.out.find("1108 parameters") != std::string::npos);
  CHECK(
      run_cli("validate " + (kData / "two-devices.json").string() + " --set devices.0=island", "validate-bad").status ==
      2);
}

TEST_CASE("faults naming an unknown link, a bad bandwidth trace or a shared host are input errors") {
  const std::string timeout = " --set training.round_timeout_s=1";
  Result r = run_with("--set 'faults={\"links\":[{\"link\":\"a-upp\",\"off_s\":[[1,2]]}]}'" + timeout, "fault-link");
  CHECK(r.status == 2);
  CHECK(r.err.find("faults.links[0].link: no link \"a-upp\" in platform") != std::string::npos);
  const fs::path dir = fresh_dir("fault-trace-file");
  std::ofstream(dir / "late.csv") << "time_s,bandwidth_bps\n1,1e6\n";
  r = run_with(
      "--set 'faults={\"links\":[{\"link\":\"a-up\",\"trace\":\"" + (dir / "late.csv").string() + "\"}]}'" + timeout,
      "fault-trace");
  CHECK(r.status == 2);
  CHECK(r.err.find("faults.links[0].trace: ") != std::string::npos);
  CHECK(r.err.find("late.csv:2: the first time must be 0, got 1") != std::string::npos);
  std::ofstream(dir / "zero.csv") << "time_s,bandwidth_bps\n0,1e6\n5,0\n";
  r = run_with(
      "--set 'faults={\"links\":[{\"link\":\"a-up\",\"trace\":\"" + (dir / "zero.csv").string() + "\"}]}'" + timeout,
      "fault-trace-zero");
  CHECK(r.status == 2);
  CHECK(r.err.find("zero.csv:3: the last bandwidth_bps must be at least 1e-09") != std::string::npos);
  r = run_with(
      "--set 'devices=[\"dev-a\",{\"host\":\"dev-a\",\"name\":\"a2\"}]' "
      "--set 'faults={\"devices\":[{\"device\":\"a2\",\"off_s\":[[1,2]]}]}'" +
          timeout,
      "fault-shared-host");
  CHECK(r.status == 2);
  CHECK(r.err.find("faults.devices: device \"a2\" shares host \"dev-a\" with device \"dev-a\"") != std::string::npos);
}

TEST_CASE("scenario files nested too deep or with a key given twice are input errors with positions") {
  const fs::path dir = fresh_dir("json-text");
  std::ofstream(dir / "deep.json") << "{\"name\": " << std::string(100000, '[') << std::string(100000, ']') << "}";
  Result r = run_cli("validate " + (dir / "deep.json").string(), "json-deep");
  CHECK(r.status == 2);
  CHECK(r.err == "edgetrain: " + (dir / "deep.json").string() + ":1:73: nesting deeper than 64 levels\n");
  std::ofstream(dir / "dup.json") << "{\n  \"seed\": 1,\n  \"seed\": 2\n}\n";
  r = run_cli("run " + (dir / "dup.json").string(), "json-dup");
  CHECK(r.status == 2);
  const std::string f = (dir / "dup.json").string();
  CHECK(r.err == "edgetrain: " + f + ":3:3: duplicate key \"seed\" in one object (first at " + f + ":2:3)\n");
  r = run_with("--set 'training={\"lr\":0.1,\"lr\":0.2}'", "json-dup-set");
  CHECK(r.status == 2);
  CHECK(r.err.find("duplicate key \"lr\" in one object (first at column 2 of the value)") != std::string::npos);
}

TEST_CASE("--seed follows the rule of the seed key") {
  const std::string scenario = (kData / "two-devices.json").string();
  Result r = run_cli("validate " + scenario + " --seed -1", "seed-negative");
  CHECK(r.status == 2);
  CHECK(r.err == "edgetrain: --seed: must be a non-negative integer, got -1\n");
  CHECK(run_cli("validate " + scenario + " --set seed=-1", "seed-negative-set").err ==
        "edgetrain: seed: must be a non-negative integer, got -1\n");
  r = run_cli("validate " + scenario + " --seed 18446744073709551615", "seed-max");
  CHECK(r.status == 0);
  CHECK(r.out.find("seed      18446744073709551615") != std::string::npos);
}

TEST_CASE("a run name that is not one folder name is refused before anything is written") {
  const fs::path cwd = fresh_dir("name-cwd");
  const std::string cmd = "cd " + cwd.string() + " && " + std::string(EDGETRAIN_BINARY) + " run " +
                          (kData / "two-devices.json").string() + " --quiet --set name=../../escaped 2>err";
  const int raw = std::system(cmd.c_str());
  CHECK(WEXITSTATUS(raw) == 2);
  CHECK(slurp(cwd / "err").find("name: '/' at character 3 is not allowed") != std::string::npos);
  CHECK(!fs::exists(cwd / "results"));
  CHECK(!fs::exists(cwd.parent_path().parent_path() / "escaped"));
  CHECK(run_with("--set 'devices=[{\"host\":\"dev-a\",\"name\":\"a,b\"},\"dev-b\"]'", "name-device").status == 2);
}

TEST_CASE("validate and run refuse an out-of-range stream rate alike") {
  const std::string scenario = (kData / "two-devices.json").string();
  for (const std::string rate : {"1e17", "'{\"dist\":\"uniform\",\"mean\":9e8,\"spread\":5e8}'"}) {
    CAPTURE(rate);
    const Result validate = run_cli("validate " + scenario + " --set stream.rate=" + rate, "rate-validate");
    const Result run = run_with("--set stream.rate=" + rate, "rate-run");
    CHECK(validate.status == 2);
    CHECK(run.status == 2);
    CHECK(validate.err == run.err);
    CHECK(run.err.find("must be at most 1e+09 samples/s") != std::string::npos);
  }
  // A huge std cannot draw a huge rate: clipped, and the run goes on.
  const Result r =
      run_cli("validate " + scenario + " --set 'stream.rate={\"dist\":\"normal\",\"mean\":50,\"std\":1e8}'",
              "rate-wide-normal");
  CHECK(r.status == 0);
}

TEST_CASE("training.compute_profile host needs every device host's compute_profile property") {
  const Result r = run_with("--set training.compute_profile=host", "profile-host");
  CHECK(r.status == 2);
  CHECK(r.err == "edgetrain: training.compute_profile: \"host\", but host dev-a has no `compute_profile` property "
                 "naming its device class\n");
}
