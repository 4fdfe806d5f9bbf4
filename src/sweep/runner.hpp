// Runs a list of commands as child processes, at most `jobs` at a time, each with its output in
// its own log file. Children get their own process group (a Ctrl-C on the terminal reaches only the
// sweep, which passes it on once, as SIGTERM) and SIGTERM when the sweep dies (PR_SET_PDEATHSIG),
// so no run outlives it. On a stop request no further command starts, the running ones get SIGTERM
// (they write their interrupted results and end), and the runner waits for them; one that has not
// ended after `kill_after_s` is killed.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace edgetrain::sweep {

struct Task {
  std::vector<std::string> argv;  // argv[0]: the program's path
  std::filesystem::path log;      // its stdout and stderr
};

struct TaskEnd {
  int exit_status = -1;  // -1 when killed by a signal
  int signal = 0;
  double wall_s = 0;
};

class TaskListener {
 public:
  virtual ~TaskListener() = default;
  virtual void started(size_t task) = 0;
  virtual void ended(size_t task, const TaskEnd& end) = 0;
  // About 10 times a second while tasks run; `running_s`: how long each running task has run.
  virtual void tick(const std::vector<double>& running_s) = 0;
};

// Returns false when stopped by `stop_requested` before every task ran. Throws std::system_error
// when a process cannot be started (fork fails, the log cannot be opened).
bool run_tasks(const std::vector<Task>& tasks, size_t jobs, const std::function<bool()>& stop_requested,
               TaskListener& listener, double kill_after_s = 30);

// The last line of `log` that starts with "edgetrain: " (the run's error), else its last non-empty
// line, else "".
std::string last_error_line(const std::filesystem::path& log);

}  // namespace edgetrain::sweep
