// iid: one seeded shuffle, equal contiguous slices. shards (McMahan et al. 2017): sort by
// label, cut into devices*k equal shards, deal k random shards to each device, so a device
// sees about k labels. dirichlet (Hsu et al. 2019): for each class, proportions over
// devices drawn from Dirichlet(alpha) split that class's samples. natural: the data set's users.
#include "learn/partition.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "util/seed.hpp"

namespace edgetrain::learn {
namespace {

using Parts = std::vector<std::vector<int64_t>>;

Parts iid(int64_t n, int64_t devices, std::mt19937_64& rng) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  Parts parts(static_cast<size_t>(devices));
  const int64_t per = n / devices;
  for (int64_t d = 0; d < devices; ++d) {
    parts[d].assign(order.begin() + d * per, order.begin() + (d + 1) * per);
  }
  return parts;
}

Parts shards(const std::vector<int64_t>& labels, int64_t devices, int64_t k, std::mt19937_64& rng) {
  const int64_t n = static_cast<int64_t>(labels.size());
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return labels[a] < labels[b]; });
  const int64_t shard_count = devices * k;
  const int64_t shard_size = n / shard_count;
  if (shard_size == 0) {
    throw PartitionError("dataset.partition: " + std::to_string(n) + " samples cannot make " +
                         std::to_string(shard_count) + " shards (devices x labels_per_device)");
  }
  std::vector<int64_t> shard_ids(static_cast<size_t>(shard_count));
  std::iota(shard_ids.begin(), shard_ids.end(), 0);
  std::shuffle(shard_ids.begin(), shard_ids.end(), rng);
  Parts parts(static_cast<size_t>(devices));
  for (int64_t s = 0; s < shard_count; ++s) {
    const int64_t shard = shard_ids[s];
    auto& part = parts[s / k];
    part.insert(part.end(), order.begin() + shard * shard_size, order.begin() + (shard + 1) * shard_size);
  }
  return parts;
}

Parts dirichlet(const std::vector<int64_t>& labels, int64_t classes, int64_t devices, double alpha,
                std::mt19937_64& rng) {
  std::vector<std::vector<int64_t>> by_class(static_cast<size_t>(classes));
  for (int64_t i = 0; i < static_cast<int64_t>(labels.size()); ++i) by_class[labels[i]].push_back(i);
  Parts parts(static_cast<size_t>(devices));
  std::gamma_distribution<double> gamma(alpha, 1.0);
  for (auto& members : by_class) {
    std::shuffle(members.begin(), members.end(), rng);
    std::vector<double> weights(static_cast<size_t>(devices));
    for (double& w : weights) w = gamma(rng);
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    // Cumulative cut points, so rounding never loses or duplicates a sample.
    double cumulative = 0;
    size_t begin = 0;
    for (int64_t d = 0; d < devices; ++d) {
      cumulative += weights[d];
      const size_t end = d + 1 == devices ? members.size()
                                          : static_cast<size_t>(members.size() * (total > 0 ? cumulative / total : 0));
      parts[d].insert(parts[d].end(), members.begin() + begin, members.begin() + std::max(begin, end));
      begin = std::max(begin, end);
    }
  }
  for (auto& part : parts) std::sort(part.begin(), part.end());
  return parts;
}

}  // namespace

Parts partition_indices(const std::vector<int64_t>& labels, int64_t classes, int64_t devices,
                        const PartitionConfig& config) {
  if (devices <= 0) throw PartitionError("devices: at least one device is needed");
  std::mt19937_64 rng(util::derive_seed(config.seed, "partition"));
  Parts parts;
  if (config.kind == "iid") {
    parts = iid(static_cast<int64_t>(labels.size()), devices, rng);
  } else if (config.kind == "shards") {
    parts = shards(labels, devices, config.labels_per_device, rng);
  } else if (config.kind == "dirichlet") {
    parts = dirichlet(labels, classes, devices, config.alpha, rng);
  } else if (config.kind == "natural") {
    throw PartitionError("dataset.partition.kind: natural needs a data set whose samples carry users (leaf, fedscale)");
  } else {
    throw PartitionError("dataset.partition.kind: unknown partition \"" + config.kind + "\"");
  }
  for (size_t d = 0; d < parts.size(); ++d) {
    if (parts[d].empty()) {
      throw PartitionError("dataset.partition: device " + std::to_string(d) + " receives no training sample (" +
                           std::to_string(labels.size()) + " samples for " + std::to_string(devices) +
                           " devices); use more samples, another partition or dataset.partition.parts (devices "
                           "sharing parts)");
    }
  }
  return parts;
}

Parts natural_partition(const std::vector<int64_t>& sample_users, int64_t devices, const PartitionConfig& config) {
  if (devices <= 0) throw PartitionError("devices: at least one device is needed");
  if (sample_users.empty()) {
    throw PartitionError("dataset.partition.kind: natural needs a data set whose samples carry users (leaf, fedscale)");
  }
  Parts by_user;
  for (int64_t i = 0; i < static_cast<int64_t>(sample_users.size()); ++i) {
    const auto u = static_cast<size_t>(sample_users[i]);
    if (u >= by_user.size()) by_user.resize(u + 1);
    by_user[u].push_back(i);
  }
  std::erase_if(by_user, [](const std::vector<int64_t>& samples) { return samples.empty(); });
  const auto users = static_cast<int64_t>(by_user.size());
  const int64_t k = config.users_per_device;
  if (k <= 0) throw PartitionError("dataset.partition.users_per_device: must be at least 1");
  if (users / k < devices) {
    throw PartitionError("dataset.partition: natural gives " + std::to_string(k) + " user(s) to each of " +
                         std::to_string(devices) + " devices, but the training set has " + std::to_string(users) +
                         " users with samples (at most " + std::to_string(users / k) + " devices)");
  }
  if (config.shuffle_users) {
    std::mt19937_64 rng(util::derive_seed(config.seed, "partition-users"));
    std::shuffle(by_user.begin(), by_user.end(), rng);
  }
  Parts parts(static_cast<size_t>(devices));
  for (int64_t d = 0; d < devices; ++d) {
    for (int64_t j = 0; j < k; ++j) {
      const auto& samples = by_user[static_cast<size_t>(d * k + j)];
      parts[d].insert(parts[d].end(), samples.begin(), samples.end());
    }
  }
  return parts;
}

DeviceParts::DeviceParts(std::vector<std::vector<int64_t>> parts, size_t devices) : devices_(devices) {
  parts_.reserve(parts.size());
  for (auto& part : parts) parts_.push_back(std::make_shared<const std::vector<int64_t>>(std::move(part)));
}

DeviceParts DeviceParts::sizes_of(std::vector<std::vector<int64_t>> parts, size_t devices) {
  DeviceParts out;
  out.devices_ = devices;
  out.parts_.reserve(parts.size());
  std::map<size_t, std::shared_ptr<const std::vector<int64_t>>> by_size;
  for (auto& part : parts) {
    auto& shared = by_size[part.size()];
    if (!shared) shared = std::make_shared<const std::vector<int64_t>>(std::move(part));
    out.parts_.push_back(shared);
  }
  return out;
}

}  // namespace edgetrain::learn
