// Partitioners: split the training set's sample indices among devices (IID, label shards,
// Dirichlet label skew). Pure C++ over labels, seeded, no LibTorch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
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
  std::string kind = "iid";  // iid | shards | dirichlet | natural
  int64_t labels_per_device = 2;
  double alpha = 0.5;
  uint64_t seed = 1;
  int64_t users_per_device = 1;  // natural
  bool shuffle_users = false;    // natural: users dealt in a seeded order rather than file order
};

// Returns one list of training-sample indices per device. Every sample is assigned to at
// most one device; iid and shards assign all but a remainder smaller than the device count
// (resp. shard count), dirichlet assigns all. Each device gets at least one sample or the
// call throws PartitionError naming the device.
std::vector<std::vector<int64_t>> partition_indices(const std::vector<int64_t>& labels, int64_t classes,
                                                    int64_t devices, const PartitionConfig& config);

// natural: the data set's own users. `sample_users` gives each training sample's user (numbered
// in file order); users without a sample are skipped. Device d gets the samples of users
// d*k .. d*k+k-1 (k = users_per_device) in file order, or in a seeded shuffle of the users; the
// users past devices*k are not used. Fewer than devices*k users: PartitionError with the counts.
std::vector<std::vector<int64_t>> natural_partition(const std::vector<int64_t>& sample_users, int64_t devices,
                                                    const PartitionConfig& config);

// The parts dealt to devices: device d holds part d mod parts (dataset.partition.parts: fewer parts
// than devices when a population outgrows its data set). A part is shared by its devices, not copied.
class DeviceParts {
 public:
  DeviceParts() = default;
  DeviceParts(std::vector<std::vector<int64_t>> parts, size_t devices);
  // For a consumer of the sizes only (timing-only runs read no sample): parts of one size share one
  // vector, so a million devices cost a pointer each, not a part each.
  static DeviceParts sizes_of(std::vector<std::vector<int64_t>> parts, size_t devices);
  const std::shared_ptr<const std::vector<int64_t>>& of(size_t device) const {
    return parts_[device % parts_.size()];
  }
  size_t devices() const { return devices_; }

 private:
  std::vector<std::shared_ptr<const std::vector<int64_t>>> parts_;
  size_t devices_ = 0;
};

}  // namespace edgetrain::learn
