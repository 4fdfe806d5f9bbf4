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

// When no LibTorch runs inside actors (timing-only runs, or steps on a pool of several workers),
// actors get small stacks (SimGrid's default is 8 MiB each). A stack's guard page, which turns an
// overflow into a crash instead of silent corruption, costs a memory mapping per actor, and Linux
// allows about 65,000: fleets above kGuardedDevices (two actors each) go without, and so do
// timing-only runs, whose actors run on guarded stacks about 40% slower (one mapping each instead
// of one heap, measured on tools/bench fleets) and run no LibTorch.
inline constexpr int kSmallStackKiB = 32;
inline constexpr size_t kGuardedDevices = 12000;  // 10,000 devices measured at 41,700 mappings

std::unique_ptr<simgrid::s4u::Engine> make_engine(const std::vector<std::string>& simgrid_args,
                                                  const platform::PlatformInfo& info, bool small_stacks,
                                                  bool guard_pages);

}  // namespace edgetrain::sim
