// Fuzz target: compute profile files (training.compute_profile_file, cost --device FILE,
// compute::read_profile_file), then a step's cost on an accepted one: finite and positive.
// fuzz.sh: -max_len=4096
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "compute/profile_file.hpp"
#include "compute/roofline.hpp"
#include "input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto file = fuzz::write_input("profile.json", data, size);
  try {
    const edgetrain::compute::Profile p = edgetrain::compute::read_profile_file(file.string());
    edgetrain::compute::Layers layers;
    edgetrain::compute::Layer dense;
    dense.kind = edgetrain::compute::Kind::dense;
    dense.flops = 2e5;
    dense.activation_bytes = 4e3;
    dense.weight_bytes = 4e5;
    layers.push_back(dense);
    const double t = edgetrain::compute::step_cost(layers, 32, p).step_s;
    if (!(std::isfinite(t) && t > 0 && t < 1e12)) {
      std::fprintf(stderr, "profile_fuzz: a step takes %g s\n", t);
      std::abort();
    }
  } catch (const edgetrain::compute::ProfileFileError&) {
  }
  return 0;
}
