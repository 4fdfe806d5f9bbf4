// One tensor of a model's flat parameter vector: its name, shape and place. Shared by the
// LibTorch model zoo (model.hpp) and the LibTorch-free model catalogue (catalogue.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace edgetrain::learn {

struct LayerInfo {
  std::string name;  // e.g. "fc1.weight"
  std::vector<int64_t> shape;
  int64_t offset = 0;  // position in the flat parameter vector
  int64_t numel = 0;
  bool norm = false;  // a normalisation module's weight or bias (BatchNorm, GroupNorm, LayerNorm): FedBN keeps it local
};

}  // namespace edgetrain::learn
