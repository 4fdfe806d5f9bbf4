// What a run shows on stderr: the live progress line on a terminal (a pseudo terminal made with
// forkpty), nothing of it in a pipe, the scenario warnings even with --quiet, and the notice of a
// default results folder that held a different scenario's results.
#include <doctest/doctest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "cli_helpers.hpp"

using namespace test;

namespace {

const std::string kScenario = (kData / "two-devices.json").string();
const std::string kTimingOnly = "training.compute=timing-only";

struct TerminalRun {
  int status = -1;
  std::string screen;  // everything written to the terminal, stdout and stderr together
  double wall_s = 0;
};

// Runs `edgetrain ARGS` with stdout and stderr on a pseudo terminal `columns` wide.
TerminalRun run_on_terminal(const std::vector<std::string>& args, unsigned short columns = 200) {
  std::vector<std::string> argv_s = {EDGETRAIN_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  winsize size{};
  size.ws_row = 24;
  size.ws_col = columns;
  int master = -1;
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, &size);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  TerminalRun r;
  char buf[4096];
  while (true) {  // until the child closes the terminal (EIO on Linux)
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n > 0) {
      r.screen.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  ::close(master);
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

std::vector<std::string> run_args(const fs::path& out, const std::vector<std::string>& sets) {
  std::vector<std::string> args = {"run", kScenario, "--out", out.string()};
  for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
  return args;
}

// The progress lines drawn: each text after a "\r" that starts with "sim ".
std::vector<std::string> progress_lines(const std::string& screen) {
  std::vector<std::string> lines;
  for (size_t at = screen.find("\rsim "); at != std::string::npos; at = screen.find("\rsim ", at + 1)) {
    const size_t end = screen.find_first_of("\r\n", at + 1);
    lines.push_back(screen.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1));
  }
  return lines;
}

// Runs `edgetrain ARGS` from the folder `cwd` (default results folders are relative to it), stdout
// and stderr into files.
Result run_in(const fs::path& cwd, const std::string& args, const std::string& tag) {
  const fs::path dir = fresh_dir("cwd-" + tag);
  const std::string cmd = "cd '" + cwd.string() + "' && " + EDGETRAIN_BINARY + " " + args + " >" +
                          (dir / "out").string() + " 2>" + (dir / "err").string();
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(dir / "out"), slurp(dir / "err")};
}

}  // namespace

TEST_CASE("a run on a terminal keeps one progress line, rewritten in place and cleared before the summary") {
  // Long enough in wall time for several redraws: timing-only, many rounds.
  const TerminalRun r =
      run_on_terminal(run_args(fresh_dir("tty-out"), {kTimingOnly, "stop.rounds=40000", "stop.sim_time_s=null"}));
  REQUIRE_MESSAGE(r.status == 0, r.screen);
  const std::vector<std::string> lines = progress_lines(r.screen);
  REQUIRE_MESSAGE(!lines.empty(), r.screen);
  // At most kRedrawsPerSecond (4) redraws per second of wall time, the first at once.
  CHECK(lines.size() <= static_cast<size_t>(4 * r.wall_s) + 1);
  for (const std::string& line : lines) {
    CHECK_MESSAGE(line.find("  round ") != std::string::npos, line);
    CHECK_MESSAGE(line.find("/40000  wall ") != std::string::npos, line);  // timing-only: no accuracy
    CHECK_MESSAGE(line.find("  left ") != std::string::npos, line);
    CHECK(line.find('\n') == std::string::npos);
  }
  // Never a line break between two redraws; the line is blanked out, then the summary starts.
  const size_t first = r.screen.find("\rsim "), summary = r.screen.find("status: completed");
  REQUIRE(summary != std::string::npos);
  CHECK(r.screen.substr(first, summary - first).find('\n') == std::string::npos);
  CHECK(r.screen.compare(summary - 2, 2, " \r") == 0);
  CHECK(r.screen.find("rounds: 40000") != std::string::npos);
}

TEST_CASE("the progress line of a real run shows the last test accuracy, and fits a narrow terminal") {
  const TerminalRun r = run_on_terminal(run_args(fresh_dir("tty-real-out"), {}), 40);
  REQUIRE_MESSAGE(r.status == 0, r.screen);
  const std::vector<std::string> lines = progress_lines(r.screen);
  REQUIRE_MESSAGE(!lines.empty(), r.screen);
  // 39 columns at most (one less than the terminal: a full line would wrap); the rest is padding.
  for (const std::string& line : lines) CHECK_MESSAGE(line.size() <= 39, line);
  const TerminalRun wide = run_on_terminal(run_args(fresh_dir("tty-real-out"), {}));
  const std::vector<std::string> wide_lines = progress_lines(wide.screen);
  REQUIRE_MESSAGE(!wide_lines.empty(), wide.screen);
  CHECK_MESSAGE(wide_lines[0].find("  round 0/6  test acc 0.") != std::string::npos, wide_lines[0]);
}

TEST_CASE("--quiet on a terminal, and any run whose stderr is not a terminal, show no progress at all") {
  const TerminalRun q = run_on_terminal({"run", kScenario, "--quiet", "--out", fresh_dir("tty-quiet").string()});
  REQUIRE_MESSAGE(q.status == 0, q.screen);
  CHECK(progress_lines(q.screen).empty());
  CHECK(q.screen.rfind("status: completed", 0) == 0);  // the summary and nothing before it
  // A pipe: the start line and the summary, no progress line (it used to print one per evaluation).
  const Result piped = run_cli("run " + kScenario + " --out " + fresh_dir("pipe-out").string(), "pipe");
  REQUIRE(piped.status == 0);
  CHECK(piped.err.rfind("edgetrain: two-devices: 2 devices, mlp, ", 0) == 0);
  CHECK(piped.err.find('\n') == piped.err.size() - 1);  // that one line
  CHECK(piped.err.find('\r') == std::string::npos);
  CHECK(piped.out.rfind("status: completed", 0) == 0);
}

TEST_CASE("run and validate print the scenario's warnings on stderr, even with --quiet, and go on") {
  const std::string sets = " --set training.mode=async --set training.momentum=0.9";
  const std::string momentum = "edgetrain: warning: training.momentum: 0.9 with training.mode async: ";
  const std::string rounds = "edgetrain: warning: stop.rounds: 6 counts applied pushes in training.mode async, ";
  const Result run =
      run_cli("run " + kScenario + " --quiet --out " + fresh_dir("warn-out").string() + sets, "warn-run");
  CHECK(run.status == 0);
  CHECK(run.err.rfind(momentum, 0) == 0);
  CHECK(run.err.find("\n" + rounds) != std::string::npos);
  CHECK(std::count(run.err.begin(), run.err.end(), '\n') == 2);  // one line each, nothing else with --quiet
  const Result validate = run_cli("validate " + kScenario + sets, "warn-validate");
  CHECK(validate.status == 0);
  CHECK(validate.err.rfind(momentum, 0) == 0);
  CHECK(validate.err.find("\n" + rounds) != std::string::npos);
  CHECK(validate.out.find("scenario is valid\n") != std::string::npos);
  // A scenario without traps: not a word.
  CHECK(run_cli("validate " + kScenario, "warn-none").err.empty());
  // Bad input is still one line: warnings come only once the set-up succeeded.
  for (const std::string command : {"run", "validate"}) {
    const Result bad = run_cli(command + " " + kScenario + " --quiet --out " + fresh_dir("warn-bad-out").string() +
                                   sets + " --set devices.1=nope",
                               "warn-bad");
    CHECK(bad.status == 2);
    CHECK_MESSAGE(std::count(bad.err.begin(), bad.err.end(), '\n') == 1, bad.err);
    CHECK(bad.err.find("devices[1]: host \"nope\" is not in platform") != std::string::npos);
  }
}

TEST_CASE("a run whose default results folder holds a different scenario's results says so, then replaces them") {
  const fs::path cwd = fresh_dir("default-out");
  const fs::path folder = cwd / "results/two-devices";
  const std::string run = "run " + kScenario + " --quiet --set " + kTimingOnly;
  // The first run, and the same scenario again: nothing to say.
  REQUIRE(run_in(cwd, run, "default-first").err.empty());
  CHECK(run_in(cwd, run, "default-same").err.empty());
  const Result other = run_in(cwd, run + " --set training.lr=0.2", "default-other");
  CHECK(other.status == 0);
  CHECK(other.err ==
        "edgetrain: warning: results/two-devices held the results of a different scenario (training.lr 0.1 -> 0.2); "
        "they are replaced (use --out DIR to keep both)\n");
  CHECK(read_json(folder / "scenario.json")["training"]["lr"] == 0.2);
  // At most three keys, then how many more.
  const Result many = run_in(
      cwd, run + " --set seed=9 --set training.batch_size=4 --set eval.every_s=2 --set stop.rounds=3", "default-many");
  CHECK(many.status == 0);
  CHECK(many.err ==
        "edgetrain: warning: results/two-devices held the results of a different scenario (eval.every_s 0.5 -> 2.0, "
        "seed 5 -> 9, stop.rounds 6 -> 3 and 2 more); they are replaced (use --out DIR to keep both)\n");
  // --out names the folder: the user chose to replace it.
  CHECK(run_in(cwd, run + " --out results/two-devices", "default-explicit").err.empty());
}
