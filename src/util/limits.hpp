// Bounds shared by the modules that read input (scenario, stream): the simulated clock's
// resolution, the longest simulated time, the fastest stream. Each bound says why it is there;
// docs/reference/limits.md lists them with the schema's own bounds.
#pragma once

namespace edgetrain::util {

// SimGrid's clock is a double of seconds. Every positive duration in a scenario or a trace is
// at least this long, so that t + d > t holds for every t < kMaxTimeS (the spacing of doubles
// near 1e9 is 1.2e-7 s): a shorter period would leave the clock frozen and the run spinning.
inline constexpr double kClockResolutionS = 1e-6;

// The longest simulated time a scenario may name (about 31.7 years), so kClockResolutionS
// stays above the clock's rounding for the whole run.
inline constexpr double kMaxTimeS = 1e9;

// The fastest stream, in samples per simulated second: sample counts (rate x time, at most
// 1e18) stay within int64 over a whole run of kMaxTimeS.
inline constexpr double kMaxRate = 1e9;

// The slowest stream, in samples per simulated second: one sample within kMaxTimeS. A slower
// stream's first batch would come after the longest run could end (1e-300 samples/s: never).
inline constexpr double kMinRate = 1.0 / kMaxTimeS;

}  // namespace edgetrain::util
