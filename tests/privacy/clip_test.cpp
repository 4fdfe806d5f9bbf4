// Clipping: an update longer than the bound comes out at the bound, pointing the same way; a shorter
// one is left exactly as it was.
#include <doctest/doctest.h>

#include <vector>

#include "privacy/clip.hpp"

using namespace edgetrain::privacy;

TEST_CASE("an update above the clip comes out at the clip, in the same direction") {
  std::vector<float> v{3.0f, 4.0f};  // norm 5
  CHECK(clip_to_norm(v, 1.0) == doctest::Approx(5.0));
  CHECK(v[0] == doctest::Approx(0.6f));
  CHECK(v[1] == doctest::Approx(0.8f));
  CHECK(l2_norm(v) == doctest::Approx(1.0).epsilon(1e-6));
}

TEST_CASE("an update within the clip is left bit for bit") {
  std::vector<float> v{0.3f, -0.4f};
  const std::vector<float> before = v;
  CHECK(clip_to_norm(v, 1.0) == doctest::Approx(0.5));
  CHECK(v == before);
}
