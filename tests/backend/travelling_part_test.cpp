// The travelling part of a model (src/backend/travelling_part.hpp): a compact layout of the tensors that
// travel, gathered from and scattered into the model's vector, the staying values copied or zeroed.
#include <doctest/doctest.h>

#include <vector>

#include "backend/travelling_part.hpp"

using namespace edgetrain;

TEST_CASE("travelling part: gathers, scatters and keeps the staying values apart") {
  // Three tensors of 2, 3 and 1 values; the middle one stays.
  const std::vector<compress::Layer> layers{{"a", {2}, 0, 2}, {"b", {3}, 2, 3}, {"c", {1}, 5, 1}};
  const backend::TravellingPart part(layers, {false, true, false});
  CHECK(part.size() == 3);
  REQUIRE(part.layout().size() == 2);
  CHECK(part.layout()[0].offset == 0);
  CHECK(part.layout()[1].offset == 2);
  CHECK(part.layout()[1].name == "c");
  const std::vector<float> full{1, 2, 3, 4, 5, 6};
  std::vector<float> compact(3);
  part.gather(full, compact);
  CHECK(compact == std::vector<float>{1, 2, 6});
  std::vector<float> back(6, 9.0f);
  part.scatter(compact, back);
  CHECK(back == std::vector<float>{1, 2, 0, 0, 0, 6});
  part.copy_staying(full, back);
  CHECK(back == std::vector<float>{1, 2, 3, 4, 5, 6});
  part.zero_travelling(back);
  CHECK(back == std::vector<float>{0, 0, 3, 4, 5, 0});
  part.zero_staying(back);
  CHECK(back == std::vector<float>(6, 0.0f));
}
