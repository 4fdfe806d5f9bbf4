// See simgrid_flags.hpp.
#include "sim/core/simgrid_flags.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <simgrid/s4u/Engine.hpp>
#include <string_view>

#include "sim/core/platform.hpp"
#include "util/printable.hpp"

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

// The configuration keys edgetrain runs with: the models and their parameters. Other keys change
// what edgetrain itself decides (actor stacks, plugins, tracing) or break the run: the thread
// context factory deadlocks when the run ends (SimGrid 3.32's maestro joins the thread of an
// actor killed while it waits on a SimGrid mutex), parallel contexts would run actors that share
// the run's state at once.
const char* const kSupportedPrefixes[] = {"network/", "cpu/", "host/model", "maxmin/", "precision/", "surf/precision"};
const char* const kFactories[] = {"raw", "ucontext", "boost"};

// "" when every key:value of a --cfg value is supported, else why not.
std::string unsupported(std::string_view settings) {
  size_t start = 0;
  while (start < settings.size()) {
    size_t end = settings.find_first_of(" \t", start);
    if (end == std::string_view::npos) end = settings.size();
    const std::string_view item = settings.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    const std::string_view key = item.substr(0, item.find(':'));
    const std::string_view value = item.find(':') == std::string_view::npos ? "" : item.substr(item.find(':') + 1);
    if (key == "contexts/factory") {
      if (std::find(std::begin(kFactories), std::end(kFactories), value) != std::end(kFactories)) continue;
      return "contexts/factory " + std::string(value) +
             " is not supported by edgetrain (use raw, ucontext or boost; the thread factory deadlocks when the run "
             "ends)";
    }
    if (std::any_of(std::begin(kSupportedPrefixes), std::end(kSupportedPrefixes),
                    [&](const char* p) { return key.substr(0, std::string_view(p).size()) == p; })) {
      continue;
    }
    return "SimGrid flag " + std::string(key) +
           " is not supported by edgetrain (supported: network/*, cpu/*, host/model, maxmin/*, precision/*, "
           "surf/precision and contexts/factory raw, ucontext or boost; edgetrain sets stacks and plugins itself)";
  }
  return "";
}

}  // namespace

void check_engine_flags(const std::vector<std::string>& defaults, const std::vector<EngineFlag>& flags) {
  if (flags.empty()) return;
  for (const EngineFlag& f : flags) {
    const std::string_view cfg = "--cfg=";
    if (f.arg.rfind(cfg, 0) != 0) continue;  // --log: any logging is fine
    if (const std::string why = unsupported(std::string_view(f.arg).substr(cfg.size())); !why.empty()) {
      throw PlatformError(util::printable(f.shown) + ": " + why);
    }
  }
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
