// See simgrid_flags.hpp.
#include "sim/simgrid_flags.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <simgrid/s4u/Engine.hpp>
#include <string_view>

#include "sim/platform.hpp"

namespace edgetrain::sim {
namespace {

constexpr const char* kMarker = "edgetrain-probe: ";

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// What SimGrid said, as one line: our marker line (an exception's message), else the text of
// its first CRITICAL or ERROR log line ("[0.000000] file.cpp:179: [root/CRITICAL] Model ...").
std::string simgrid_message(const std::string& output, int status) {
  if (const size_t at = output.find(kMarker); at != std::string::npos) {
    return first_line(output.substr(at + std::string_view(kMarker).size()));
  }
  size_t first = std::string::npos, skip = 0;
  for (const std::string_view tag : {"/CRITICAL] ", "/ERROR] ", "what():  "}) {
    const size_t at = output.find(tag);
    if (at < first) first = at, skip = tag.size();
  }
  if (first != std::string::npos) return first_line(output.substr(first + skip));
  return "SimGrid refused it (exit status " + std::to_string(status) + ")";
}

// Builds an Engine from `args` in a child process; "" if it came up, else SimGrid's message.
std::string probe(const std::vector<std::string>& args) {
  int fds[2];
  if (pipe(fds) != 0) return "";  // cannot check: let the real Engine speak
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return "";
  }
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDOUT_FILENO);  // "--cfg=...:help" prints there
    close(fds[0]);
    std::vector<std::string> copy = args;
    std::vector<char*> argv;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    int argc = static_cast<int>(copy.size());
    try {
      new simgrid::s4u::Engine(&argc, argv.data());  // never destroyed: the child ends right here
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s%s\n", kMarker, first_line(e.what()).c_str());
      std::fflush(stderr);
      _exit(1);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string output;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0) output.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  return simgrid_message(output, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

}  // namespace

void check_engine_flags(const std::vector<std::string>& defaults, const std::vector<EngineFlag>& flags) {
  if (flags.empty()) return;
  std::vector<std::string> args = defaults;
  for (const EngineFlag& f : flags) args.push_back(f.arg);
  const std::string all = probe(args);
  if (all.empty()) return;
  // Name the first flag that fails with those before it.
  args = defaults;
  for (const EngineFlag& f : flags) {
    args.push_back(f.arg);
    const std::string message = probe(args);
    if (!message.empty()) throw PlatformError(f.shown + ": " + message);
  }
  throw PlatformError(flags.back().shown + ": " + all);
}

}  // namespace edgetrain::sim
