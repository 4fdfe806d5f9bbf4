// Client-level clipping of differential privacy: an update scaled down to L2 norm `clip` when it is
// longer, so that one device changes the aggregate by at most `clip` (the sensitivity the noise and
// the accountant assume). Plain C++: no LibTorch, no SimGrid.
#pragma once

#include <span>

namespace edgetrain::privacy {

// The L2 norm of `v`, summed in double.
double l2_norm(std::span<const float> v);

// Scales `v` in place to norm `clip` when its norm is above it; returns the norm it had.
double clip_to_norm(std::span<float> v, double clip);

}  // namespace edgetrain::privacy
