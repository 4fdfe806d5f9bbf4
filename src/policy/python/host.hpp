// The embedded interpreter (Debian's python3 through pybind11) on a thread of its own: every call into a
// policy runs there while the simulation waits. A thread of its own because the simulation calls from
// SimGrid actors whose stacks are tens of KiB (Python needs megabytes), and so that a signal can stop the
// Python code running: the waiting side sees the stop flag and raises KeyboardInterrupt in it.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace edgetrain::policy {

// Where a policy's code is, for its errors: the scenario key and the file it names.
struct PolicySource {
  std::string key;   // strategy.python
  std::string file;  // absolute
};

// A Python exception out of a policy: "KEY: FILE:LINE: Type: message (in METHOD)". The run fails with it.
class PolicyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs `job` on the interpreter's thread, holding the GIL (the interpreter starts on first use, without
// Python's signal handlers, and stays until the process ends). A Python exception it lets out becomes a
// PolicyError naming `source`'s file and line and `method`; a signal while it runs raises KeyboardInterrupt
// in it and util::Interrupted here.
void run_python(const PolicySource& source, const char* method, const std::function<void()>& job);

}  // namespace edgetrain::policy
