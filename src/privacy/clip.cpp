// See clip.hpp.
#include "privacy/clip.hpp"

#include <cmath>

namespace edgetrain::privacy {

double l2_norm(std::span<const float> v) {
  double squares = 0;
  for (float x : v) squares += static_cast<double>(x) * static_cast<double>(x);
  return std::sqrt(squares);
}

double clip_to_norm(std::span<float> v, double clip) {
  const double norm = l2_norm(v);
  if (norm > clip) {
    const auto scale = static_cast<float>(clip / norm);
    for (float& x : v) x *= scale;
  }
  return norm;
}

}  // namespace edgetrain::privacy
