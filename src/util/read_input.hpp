// The one way edgetrain reads an input file (scenario, sweep file, platform, fleet description,
// stream and link traces): with a size bound checked while reading, and without blocking the
// signal path. A regular file is refused by its size before anything is read; a stream (a pipe,
// a FIFO, a terminal, a character device such as /dev/zero) is read through poll() up to the
// bound, looking at the stop flag between reads, and is allowed only for inputs read once. Files
// are opened with O_NONBLOCK, so opening a FIFO that no one writes to returns at once (a plain
// open() would wait for a writer, deaf to Ctrl-C); the read then waits for the writer, and a
// signal ends the wait (util::Interrupted).
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "util/input_error.hpp"

namespace edgetrain::util {

// An input that cannot be read: the message names the file and says why (one line).
class ReadError : public std::runtime_error, public InputError {
 public:
  using std::runtime_error::runtime_error;
};

struct InputRule {
  const char* what;     // "the scenario file", for messages
  uint64_t max_bytes;   // larger inputs are refused
  bool streams;         // pipes, FIFOs and devices allowed (the input is read exactly once)
  const char* regular;  // why a stream is refused, when it is
};

inline constexpr uint64_t kMiB = uint64_t{1} << 20;

// JSON documents people write or generate: far above any real one (a scenario listing 100,000
// devices is about 10 MB; a sweep of 10^6 explicit runs about 50 MB).
inline constexpr InputRule kScenarioInput{"the scenario file", 64 * kMiB, true, ""};
inline constexpr InputRule kSweepInput{"the sweep file", 64 * kMiB, true, ""};
// The platform is read again by SimGrid, a fleet description twice by edgetrain: regular files
// only. 1 GiB holds the platform of the largest fleet with a host per device (10^6 devices,
// fleet/parse.hpp's kMaxHostDevices, at 436 bytes each as in plan-100k's 43.6 MB).
inline constexpr InputRule kPlatformInput{"the platform file", 1024 * kMiB, false,
                                          "SimGrid reads the platform again after edgetrain checked it"};
inline constexpr InputRule kFleetInput{"the fleet description", 64 * kMiB, false,
                                       "a fleet description is read more than once"};
// Data sets and models people bring (dataset.file's npz, LEAF's JSON, IDX files, model.file's
// TorchScript archive): regular files only, read by their own readers, at most 64 GiB.
inline constexpr InputRule kDataFileInput{"the data file", 64 * 1024 * kMiB, false,
                                          "a data set or model is read from a file on disk"};
// Traces (time_s,value rows) are read once per device that names them: regular files only.
inline constexpr InputRule kTraceInput{"the trace", 256 * kMiB, false, "a trace is read once per device that uses it"};

// The whole content of `file`; throws ReadError (no such file, a directory, a stream where
// `rule` wants a regular file, larger than the bound, a read error) or Interrupted (a signal came
// while waiting for a stream). `what` in messages is `rule.what`.
std::string read_input(const std::filesystem::path& file, const InputRule& rule);

// For the inputs whose own readers stream them (data sets, archives): refuses, as read_input does, a
// file that is no regular file (a FIFO, a device: opened without blocking, so the answer comes at once)
// or larger than rule.max_bytes; returns its size. The reader then opens it knowing it is a file.
uint64_t check_regular_input(const std::filesystem::path& file, const InputRule& rule);

// `read()`'s result, a ReadError rethrown as the caller's module error (its message unchanged).
template <class Error, class Read>
auto read_as(Read&& read) {
  try {
    return read();
  } catch (const ReadError& e) {
    throw Error(e.what());
  }
}

template <class Error>
uint64_t check_regular_input_as(const std::filesystem::path& file, const InputRule& rule) {
  return read_as<Error>([&] { return check_regular_input(file, rule); });
}

template <class Error>
std::string read_input_as(const std::filesystem::path& file, const InputRule& rule) {
  return read_as<Error>([&] { return read_input(file, rule); });
}

}  // namespace edgetrain::util
