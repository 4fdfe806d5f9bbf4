// Finds and runs the plotting scripts (see plot_script.hpp).
#include "cli/plot_script.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sim/core/stop_signal.hpp"

extern char** environ;

namespace edgetrain::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kScript = "edgetrain_plots.py";

int fail(const std::string& command, const std::string& message, int status) {
  std::fprintf(stderr, "edgetrain %s: %s\n", command.c_str(), message.c_str());
  return status;
}

}  // namespace

fs::path plot_scripts_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share/edgetrain/plot";
    if (fs::is_regular_file(installed / kScript, ec)) return installed;
  }
  const fs::path source = fs::path(EDGETRAIN_SOURCE_DIR) / "src/plot";
  if (fs::is_regular_file(source / kScript, ec)) return source;
  return {};
}

int run_plot_script(const std::string& command, const std::vector<std::string>& args) {
  const char* chosen = std::getenv("EDGETRAIN_PYTHON");
  const std::string python = chosen && *chosen ? chosen : "/usr/bin/python3";
  if (::access(python.c_str(), X_OK) != 0) {
    return fail(
        command,
        python + " not found: plots need Python 3 with matplotlib (on Debian: apt-get install python3-matplotlib)", 2);
  }
  const fs::path dir = plot_scripts_dir();
  if (dir.empty()) {
    return fail(command,
                std::string("cannot find the plotting scripts (") + kScript + " in " +
                    "<prefix>/share/edgetrain/plot or " + EDGETRAIN_SOURCE_DIR + "/src/plot)",
                1);
  }
  // -s -E: neither the user's site packages nor PYTHON* variables change which matplotlib is used;
  // -B: no __pycache__ written beside the scripts (a source tree, or an installed share/ folder).
  std::vector<std::string> argv_s = {python, "-s", "-E", "-B", (dir / kScript).string(), command};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (const int err = ::posix_spawn(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ); err != 0) {
    return fail(command, "cannot start " + python + ": " + std::strerror(err), 2);
  }
  int raw = 0;
  bool passed_on = false;
  while (::waitpid(pid, &raw, 0) < 0) {
    if (errno != EINTR)
      return fail(command, std::string("waiting for the plotting script: ") + std::strerror(errno), 1);
    if (sim::interrupt_requested() && !passed_on) {  // e.g. a SIGTERM sent to edgetrain alone
      ::kill(pid, SIGTERM);
      passed_on = true;
    }
  }
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

}  // namespace edgetrain::cli
