// See memory.hpp.
#include "util/memory.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace edgetrain::util {
namespace {

namespace fs = std::filesystem;

std::optional<double> read_number(const fs::path& p) {
  std::ifstream in(p);
  std::string word;
  if (!(in >> word) || word == "max") return std::nullopt;
  try {
    return std::stod(word);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The number after `key` on its line of a "key value [unit]" file (/proc/meminfo, memory.stat).
std::optional<double> stat_value(const fs::path& p, const std::string& key) {
  std::ifstream in(p);
  std::string line, k;
  double v;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    if (words >> k >> v && k == key) return v;
  }
  return std::nullopt;
}

// What the memory cgroup leaves: limit - (usage - reclaimable page cache). The process's own
// cgroup folder, or the mount's root (containers show the root as their own).
std::optional<double> cgroup_free() {
  std::ifstream self("/proc/self/cgroup");
  std::string line;
  std::vector<fs::path> dirs;
  while (std::getline(self, line)) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (controllers.empty()) dirs.push_back(fs::path("/sys/fs/cgroup") / fs::path(path).relative_path());
    if (controllers == "memory") dirs.push_back(fs::path("/sys/fs/cgroup/memory") / fs::path(path).relative_path());
  }
  dirs.push_back("/sys/fs/cgroup");
  dirs.push_back("/sys/fs/cgroup/memory");
  for (const fs::path& dir : dirs) {
    const bool v2 = fs::exists(dir / "memory.max");
    if (!v2 && !fs::exists(dir / "memory.limit_in_bytes")) continue;
    const auto limit = read_number(dir / (v2 ? "memory.max" : "memory.limit_in_bytes"));
    if (!limit || *limit >= 1e18) return std::nullopt;  // no limit ("max", or v1's huge sentinel)
    const double usage = read_number(dir / (v2 ? "memory.current" : "memory.usage_in_bytes")).value_or(0);
    const double cache = stat_value(dir / "memory.stat", v2 ? "inactive_file" : "total_inactive_file").value_or(0);
    return std::max(0.0, *limit - std::max(0.0, usage - cache));
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> available_memory() {
  std::optional<double> available = stat_value("/proc/meminfo", "MemAvailable:");
  if (available) *available *= 1024;  // kB
  if (const auto cgroup = cgroup_free()) available = available ? std::min(*available, *cgroup) : *cgroup;
  return available;
}

std::optional<double> memory_for_this_process() {
  std::optional<double> available = available_memory();
  if (!available) return available;
  const std::optional<double> held = stat_value("/proc/self/status", "VmRSS:");  // kB
  return *available + held.value_or(0) * 1024;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  size_t u = 0;
  while (bytes >= 1000 && u + 1 < std::size(units)) {
    bytes /= 1000;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, bytes >= 100 || u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buf;
}

}  // namespace edgetrain::util
