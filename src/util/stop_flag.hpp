// The stop flag that SIGINT and SIGTERM set (sim/core/stop_signal.hpp installs the handler), readable
// by every module: the long loops that run before a simulation (reading a FIFO, planning a sweep,
// drawing a fleet, building a graph of peers) look at it and end with Interrupted, which the CLI
// turns into "interrupted while ..." and exit status 130. No SimGrid here.
#pragma once

#include <csignal>
#include <stdexcept>
#include <string>
#include <string_view>

namespace edgetrain::util {

// Set by the signal handler only (sig_atomic_t: the one type a handler may write).
inline volatile std::sig_atomic_t stop_flag = 0;

inline bool stop_requested() { return stop_flag != 0; }

// A signal came before the simulation started: nothing was simulated or written. Not an input
// error: the CLI exits 130.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(std::string_view during) : std::runtime_error("interrupted while " + std::string(during)) {}
};

// Throws Interrupted naming `during` ("planning the sweep") once a signal came.
inline void throw_if_stopped(std::string_view during) {
  if (stop_requested()) throw Interrupted(during);
}

}  // namespace edgetrain::util
