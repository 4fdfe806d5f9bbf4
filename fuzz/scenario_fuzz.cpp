// Fuzz target: the scenario loader (scenario::load_scenario) with --set overrides and --seed.
//
// Input: a scenario document (JSON with comments), optionally followed by a line "%%" and then one
// override per line: "key.path=value" as given to --set, or "--seed=N". The document is written to
// s/c/scen.json in a temporary folder that holds the files scenarios name (platform.xml and
// ../platform.xml, two-devices.xml, ../platforms/*.xml, ../../platforms/*.xml, trace.csv,
// traces/wan.csv, ../traces/wan.csv, bw.csv, data/), so that the path checks can pass.
// FUZZ_VERBOSE=1 prints why each input was rejected (to check that a seed is accepted).
// The loader may only throw ScenarioError, one line of printable text and never its "internal error"
// fallback (which says some other exception escaped a check); an accepted scenario must describe().
// fuzz.sh: -max_len=16384
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/load.hpp"

namespace fs = std::filesystem;

namespace {

fs::path g_root;         // the temporary folder, removed at exit
fs::path g_scenario;     // where each input is written
bool g_verbose = false;  // FUZZ_VERBOSE=1: print why each input was rejected (to check a seed)

void write(const fs::path& p, std::string_view content) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
}

void remove_root() {
  std::error_code ec;
  fs::remove_all(g_root, ec);
}

// The message with control bytes as \xNN, so that what was wrong with it shows.
std::string escaped(const std::string& message) {
  std::string out;
  for (const char c : message) {
    if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) {
      out += c;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
      out += hex;
    }
  }
  return out;
}

[[noreturn]] void violated(const char* what, const std::string& message) {
  std::fprintf(stderr, "scenario_fuzz: %s: %s\n", what, escaped(message).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Under TMPDIR (fuzz.sh points it into build-fuzz/), one folder per process.
  g_root = fs::temp_directory_path() / ("edgetrain-scenario-fuzz-" + std::to_string(::getpid()));
  fs::remove_all(g_root);
  const std::string platform = "<?xml version='1.0'?>\n<platform version=\"4.1\"></platform>\n";
  const std::string trace = "time_s,rate\n0,10\n5,20\n";
  for (const char* dir : {"s/c/", "s/", "s/platforms/", "platforms/"}) {
    for (const char* name : {"platform.xml", "two-devices.xml", "quickstart.xml", "adacomp16.xml", "scadles16.xml"})
      write(g_root / dir / name, platform);
  }
  for (const char* name : {"s/c/trace.csv", "s/c/bw.csv", "s/c/traces/wan.csv", "s/traces/wan.csv"})
    write(g_root / name, trace);
  fs::create_directories(g_root / "s/c/data");
  g_scenario = g_root / "s/c/scen.json";
  g_verbose = std::getenv("FUZZ_VERBOSE") != nullptr;
  std::atexit(remove_root);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string_view document = input, overrides;
  if (input.substr(0, 3) == "%%\n") {
    document = {}, overrides = input.substr(3);
  } else if (const size_t split = input.find("\n%%\n"); split != std::string_view::npos) {
    document = input.substr(0, split + 1), overrides = input.substr(split + 4);
  }
  std::vector<std::string> sets;
  std::optional<uint64_t> seed;
  while (!overrides.empty() && sets.size() < 16) {
    const size_t end = overrides.find('\n');
    const std::string_view line = overrides.substr(0, end);
    overrides.remove_prefix(end == std::string_view::npos ? overrides.size() : end + 1);
    if (line.substr(0, 7) == "--seed=") {
      uint64_t value = 0;
      const auto [ptr, ec] = std::from_chars(line.data() + 7, line.data() + line.size(), value);
      if (ec == std::errc() && ptr == line.data() + line.size()) seed = value;
    } else if (!line.empty()) {
      sets.emplace_back(line);
    }
  }
  write(g_scenario, document);
  try {
    const edgetrain::scenario::Scenario scenario = edgetrain::scenario::load_scenario(g_scenario, sets, seed);
    (void)edgetrain::scenario::describe(scenario);
  } catch (const edgetrain::scenario::ScenarioError& e) {
    const std::string message = e.what();
    if (g_verbose) std::fprintf(stderr, "scenario_fuzz: rejected: %s\n", escaped(message).c_str());
    // The fallback's wording, unless the input wrote it itself (the fuzzer learns the compared text).
    const bool fallback = message.rfind("scenario: internal error while reading the scenario: ", 0) == 0;
    if (fallback && input.find("internal error") == std::string_view::npos)
      violated("an exception escaped the checks", message);
    const bool control = std::any_of(message.begin(), message.end(), [](char c) { return c >= 0 && c < 0x20; });
    if (message.empty() || control) violated("not one printable line", message);
  }
  return 0;
}
