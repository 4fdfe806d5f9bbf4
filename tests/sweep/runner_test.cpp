// The process runner: exit statuses and logs of its children, at most `jobs` at a time, a stop
// request passed on as SIGTERM, a program that cannot start.
#include "sweep/runner.hpp"

#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>

#include "helpers.hpp"

using namespace edgetrain::sweep;
using sweep_test::TempDir;

namespace {

struct Recorder : TaskListener {
  std::vector<TaskEnd> ends = std::vector<TaskEnd>(8);
  size_t running = 0, most = 0;
  void started(size_t) override { most = std::max(most, ++running); }
  void ended(size_t task, const TaskEnd& end) override {
    --running;
    ends[task] = end;
  }
  void tick(const std::vector<double>&) override {}
};

Task shell(const TempDir& dir, const std::string& script, const std::string& log) {
  return {{"/bin/sh", "-c", script}, dir.path() / log};
}

}  // namespace

TEST_CASE("runner: every task runs, at most jobs at a time, with its exit status and its output in its log") {
  TempDir dir("runner");
  std::vector<Task> tasks;
  for (int i = 0; i < 4; ++i) {
    tasks.push_back(shell(dir,
                          "echo out " + std::to_string(i) + "; echo edgetrain: bad " + std::to_string(i) +
                              " >&2; sleep 0.2; exit " + std::to_string(i),
                          std::to_string(i) + ".log"));
  }
  Recorder r;
  CHECK(run_tasks(
      tasks, 2, [] { return false; }, r));
  CHECK(r.most == 2);
  for (int i = 0; i < 4; ++i) {
    CHECK(r.ends[i].exit_status == i);
    CHECK(r.ends[i].signal == 0);
    CHECK(last_error_line(dir.path() / (std::to_string(i) + ".log")) == "edgetrain: bad " + std::to_string(i));
  }
}

TEST_CASE("runner: a stop request sends SIGTERM to the running tasks and starts no more") {
  TempDir dir("runner-stop");
  const std::vector<Task> tasks = {shell(dir, "exec sleep 30", "a.log"), shell(dir, "exec sleep 30", "b.log")};
  Recorder r;
  const auto start = std::chrono::steady_clock::now();
  const bool all = run_tasks(
      tasks, 1, [&] { return std::chrono::steady_clock::now() - start > std::chrono::milliseconds(300); }, r);
  CHECK_FALSE(all);
  CHECK(r.ends[0].signal == SIGTERM);
  CHECK(r.ends[1].exit_status == -1);  // never started
  CHECK(r.ends[1].signal == 0);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "b.log"));
}

TEST_CASE("runner: a program that cannot start exits 127 with the reason in its log") {
  TempDir dir("runner-exec");
  Recorder r;
  CHECK(run_tasks(
      {{{"/nonexistent/edgetrain", "run"}, dir.path() / "x.log"}}, 1, [] { return false; }, r));
  CHECK(r.ends[0].exit_status == 127);
  CHECK(last_error_line(dir.path() / "x.log") == "edgetrain: sweep: cannot start the run (exec failed, errno 2)");
}
