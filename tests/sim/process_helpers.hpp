// Helpers for tests that start the edgetrain binary in the background and signal it: start,
// wait with a deadline (past it the process is killed with SIGKILL, like `timeout -k`, so that a
// test can never hang), and see from /proc whether it handles a signal yet.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cli_helpers.hpp"

namespace test {

struct Child {
  pid_t pid = -1;
  fs::path dir;  // its stdout and stderr: dir/out, dir/err
  bool ended = false;  // reaped: `raw` holds its wait status
  int raw = 0;
};

// Whether the child still runs (reaps it once it has ended).
inline bool running(Child& c) {
  if (!c.ended && ::waitpid(c.pid, &c.raw, WNOHANG) == c.pid) c.ended = true;
  return !c.ended;
}

// Starts `edgetrain ARGS` (one argument per element); `in_child` runs in the child before exec
// (limits, signal dispositions).
inline Child start_cli(const std::vector<std::string>& args, const std::string& tag,
                       const std::function<void()>& in_child = {}) {
  Child c;
  c.dir = fresh_dir("proc-" + tag);
  std::vector<std::string> argv_s = {EDGETRAIN_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string out = (c.dir / "out").string(), err = (c.dir / "err").string();
  c.pid = ::fork();
  if (c.pid == 0) {
    ::dup2(::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 1);
    ::dup2(::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 2);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    if (in_child) in_child();
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return c;
}

inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Polls `done` every 10 ms for at most `timeout_s`; true once it held.
inline bool wait_until(const std::function<bool()>& done, double timeout_s) {
  const auto start = std::chrono::steady_clock::now();
  while (!done()) {
    if (seconds_since(start) > timeout_s) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// Waits for the child to end, for at most `timeout_s` (then SIGKILL). The status is the exit code,
// or 128 + the signal that ended it (as a shell reports it); `timed_out` says whether it was killed.
struct Ended {
  Result result;
  bool timed_out = false;
};
inline Ended wait_cli(Child& c, double timeout_s) {
  Ended e;
  if (!wait_until([&] { return !running(c); }, timeout_s)) {
    e.timed_out = true;
    ::kill(c.pid, SIGKILL);
    ::waitpid(c.pid, &c.raw, 0);
    c.ended = true;
  }
  const int raw = c.raw;
  e.result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  e.result.out = slurp(c.dir / "out");
  e.result.err = slurp(c.dir / "err");
  return e;
}

// Whether process `pid`, once it runs the edgetrain binary, has a handler installed for `sig` (the SigCgt mask of
// /proc/PID/status).
inline bool catches(pid_t pid, int sig) {
  // Between fork and exec the child still has the test's own handlers: only the binary's count.
  std::error_code ec;
  if (fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec) != fs::canonical(EDGETRAIN_BINARY)) return false;
  std::istringstream in(slurp("/proc/" + std::to_string(pid) + "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("SigCgt:", 0) != 0) continue;
    const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
    return (mask >> (sig - 1)) & 1ULL;
  }
  return false;
}

// Whether the child's stderr holds `text` yet.
inline bool err_has(const Child& c, const std::string& text) {
  return slurp(c.dir / "err").find(text) != std::string::npos;
}

// Waits (at most `timeout_s`) until the running child's stderr holds `text`; false if it ended first.
inline bool wait_for_err(Child& c, const std::string& text, double timeout_s) {
  return wait_until([&] { return err_has(c, text) || !running(c); }, timeout_s) && running(c) && err_has(c, text);
}

}  // namespace test
