// What this machine has left to allocate, and byte counts as messages print them: shared by the
// run's memory estimate (backend) and the platform check's bound on cluster sizes (platform).
#pragma once

#include <optional>
#include <string>

namespace edgetrain::util {

// What this process can still allocate: MemAvailable from /proc/meminfo, lowered to what the
// memory cgroup (v2 memory.max or v1 memory.limit_in_bytes) leaves, if a limit applies. Empty
// when neither can be read (the checks are then skipped).
std::optional<double> available_memory();
// What the whole process may hold: available_memory() plus what it already holds (VmRSS), to compare
// with an estimate of the whole run made once part of it is loaded (a population's records).
std::optional<double> memory_for_this_process();

// "1.5 GB", "640 MB": decimal units, three significant digits.
std::string format_bytes(double bytes);

}  // namespace edgetrain::util
