// See runner.hpp.
#include "sweep/runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <map>
#include <system_error>
#include <thread>

namespace edgetrain::sweep {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

pid_t spawn(const Task& task) {
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<char*> argv;
  for (const auto& a : task.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int log = ::open(task.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (log < 0) throw std::system_error(errno, std::generic_category(), task.log.string());
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);  // the sweep died before prctl
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    ::execv(argv[0], argv.data());
    // strerror is not async-signal-safe: the errno as a number.
    char message[96] = "edgetrain: sweep: cannot start the run (exec failed, errno ";
    size_t n = sizeof "edgetrain: sweep: cannot start the run (exec failed, errno " - 1;
    char digits[12];
    int k = 0;
    for (int e = errno; k == 0 || e > 0; e /= 10) digits[k++] = static_cast<char>('0' + e % 10);
    while (k > 0) message[n++] = digits[--k];
    message[n++] = ')';
    message[n++] = '\n';
    (void)!::write(2, message, n);
    ::_exit(127);
  }
  const int err = errno;
  ::close(log);
  if (null >= 0) ::close(null);
  if (pid < 0) throw std::system_error(err, std::generic_category(), "fork");
  ::setpgid(pid, pid);  // also here: no race with a signal sent before the child ran setpgid
  return pid;
}

struct Running {
  size_t task;
  Clock::time_point start;
};

}  // namespace

bool run_tasks(const std::vector<Task>& tasks, size_t jobs, const std::function<bool()>& stop_requested,
               TaskListener& listener, double kill_after_s) {
  std::map<pid_t, Running> running;
  size_t next = 0;
  bool stopping = false, killed = false;
  Clock::time_point stop_time{};
  while ((!stopping && next < tasks.size()) || !running.empty()) {
    if (!stopping && stop_requested()) {
      stopping = true;
      stop_time = Clock::now();
      for (const auto& [pid, r] : running) ::kill(pid, SIGTERM);
    }
    if (stopping && !killed && seconds_since(stop_time) > kill_after_s) {
      killed = true;
      for (const auto& [pid, r] : running) ::kill(pid, SIGKILL);
    }
    while (!stopping && next < tasks.size() && running.size() < jobs) {
      running[spawn(tasks[next])] = {next, Clock::now()};
      listener.started(next++);
    }
    int raw = 0;
    const pid_t pid = ::waitpid(-1, &raw, WNOHANG);
    if (pid > 0) {
      const auto it = running.find(pid);
      if (it == running.end()) continue;  // not one of ours
      TaskEnd end;
      end.wall_s = seconds_since(it->second.start);
      if (WIFEXITED(raw)) end.exit_status = WEXITSTATUS(raw);
      if (WIFSIGNALED(raw)) end.signal = WTERMSIG(raw);
      const size_t task = it->second.task;
      running.erase(it);
      listener.ended(task, end);
      continue;
    }
    if (pid < 0 && errno != EINTR && errno != ECHILD)
      throw std::system_error(errno, std::generic_category(), "waitpid");
    std::vector<double> running_s;
    for (const auto& [p, r] : running) running_s.push_back(seconds_since(r.start));
    listener.tick(running_s);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return next == tasks.size() && !stopping;
}

std::string last_error_line(const std::filesystem::path& log) {
  std::ifstream in(log);
  std::string line, error, last;
  while (std::getline(in, line)) {
    if (line.rfind("edgetrain: ", 0) == 0) error = line;
    if (!line.empty()) last = line;
  }
  return error.empty() ? last : error;
}

}  // namespace edgetrain::sweep
