// The SimGrid engine every simulation of edgetrain starts from (a run, a calibration's flow-level
// experiments): CM02, the Full solver, no cross-traffic, quiet configuration, then the user's
// --cfg/--log flags and the platform's <config>, each tried first in a throw-away engine since
// SimGrid aborts on bad ones.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "platform/check.hpp"

namespace simgrid::s4u {
class Engine;
}

namespace edgetrain::sim {

// When no LibTorch runs inside actors (steps on a pool of several workers), actors get small stacks
// (SimGrid's default is 8 MiB each). A stack's guard page, which turns an overflow into a crash
// instead of silent corruption, costs a memory mapping per actor, and Linux allows about 65,000:
// fleets above kGuardedDevices (two actors each) go without.
inline constexpr int kSmallStackKiB = 32;
inline constexpr size_t kGuardedDevices = 12000;  // 10,000 devices measured at 41,700 mappings
// Timing-only actors run SimGrid's calls and edgetrain's bookkeeping, no LibTorch. The deepest
// measured on the shipped scenarios, under guard pages, is 8 to 12 KiB: an actor killed by a churn
// trace, whose unwinding resolves symbols lazily and so saves the CPU's vector registers on the
// stack (2.7 KiB with AVX-512; up to 11 KiB where AMX tiles are enabled). Guarded stacks run about
// 40% slower (one mapping each instead of one heap, measured on tools/bench fleets), so only fleets
// the size of the test suite's keep guard pages: a deeper stack crashes a test, not a large run.
inline constexpr int kTimingOnlyStackKiB = 24;
inline constexpr size_t kGuardedTimingOnlyDevices = 1000;

// stack_kib 0 keeps SimGrid's default stack.
std::unique_ptr<simgrid::s4u::Engine> make_engine(const std::vector<std::string>& simgrid_args,
                                                  const platform::PlatformInfo& info, int stack_kib,
                                                  bool guard_pages);

}  // namespace edgetrain::sim
