// Fuzz target: sweep files (sweep::load_sweep, the reader behind `edgetrain sweep`). Each input is
// written as s.json in a temporary folder beside a base scenario, then read: it is refused with
// one SweepError line, or accepted with at most kMaxSweepRuns runs, each listing exactly the
// sweep's varied keys in their order.
// fuzz.sh: -max_len=2048
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "sweep/sweep_file.hpp"

namespace fs = std::filesystem;

namespace {

fs::path g_root, g_sweep;

[[noreturn]] void failure(const char* what, const std::string& detail) {
  std::fprintf(stderr, "sweep_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

void remove_root() {
  std::error_code ec;
  fs::remove_all(g_root, ec);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_root = fs::temp_directory_path() / ("edgetrain-sweep-fuzz-" + std::to_string(::getpid()));
  fs::remove_all(g_root);
  fs::create_directories(g_root);
  std::ofstream(g_root / "base.json") << "{}";  // load_sweep checks only that the base exists
  g_sweep = g_root / "s.json";
  std::atexit(remove_root);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::ofstream(g_sweep, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                  static_cast<std::streamsize>(size));
  edgetrain::sweep::SweepSpec spec;
  try {
    spec = edgetrain::sweep::load_sweep(g_sweep);
  } catch (const edgetrain::sweep::SweepError& e) {
    const std::string_view message = e.what();
    bool printable = message.rfind(g_sweep.string() + ":", 0) == 0;
    for (const char c : message) printable = printable && !(c >= 0 && c < 0x20) && c != 0x7f;
    if (!printable) failure("not one printable line naming the file", e.what());
    return 0;
  }
  if (spec.runs.empty() || spec.runs.size() > edgetrain::sweep::kMaxSweepRuns) {
    failure("run count", std::to_string(spec.runs.size()));
  }
  for (const auto& run : spec.runs) {
    size_t v = 0;  // each run's keys: a subsequence of `varied`, in its order
    for (const auto& [key, value] : run) {
      while (v < spec.varied.size() && spec.varied[v] != key) ++v;
      if (v == spec.varied.size()) failure("a run's key out of the varied order", key);
      ++v;
    }
  }
  return 0;
}
