// Partitioners: split the training set's sample indices among devices (IID, label shards,
// Dirichlet label skew). Pure C++ over labels, seeded, no LibTorch.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/input_error.hpp"

namespace edgetrain::learn {

class PartitionError : public std::runtime_error, public util::InputError {
 public:
  using std::runtime_error::runtime_error;
};

struct PartitionConfig {
  std::string kind = "iid";  // iid | shards | dirichlet
  int64_t labels_per_device = 2;
  double alpha = 0.5;
  uint64_t seed = 1;
};

// Returns one list of training-sample indices per device. Every sample is assigned to at
// most one device; iid and shards assign all but a remainder smaller than the device count
// (resp. shard count), dirichlet assigns all. Each device gets at least one sample or the
// call throws PartitionError naming the device.
std::vector<std::vector<int64_t>> partition_indices(const std::vector<int64_t>& labels, int64_t classes,
                                                    int64_t devices, const PartitionConfig& config);

}  // namespace edgetrain::learn
