// See update_privacy.hpp.
#include "backend/update_privacy.hpp"

#include "privacy/clip.hpp"
#include "privacy/gaussian_noise.hpp"
#include "util/seed.hpp"

namespace edgetrain::backend {

DevicePrivacy::DevicePrivacy(const scenario::DpSpec& dp, double noise_stddev, uint64_t seed)
    : clip_(dp.clip),
      stddev_(noise_stddev),
      noise_first_(dp.noise_on_devices() && dp.noise_before_compression()),
      noise_after_(dp.noise_on_devices() && !dp.noise_before_compression()),
      seed_(seed) {}

void DevicePrivacy::before_encoding(std::span<float> update, int64_t step) const {
  privacy::clip_to_norm(update, clip_);
  if (noise_first_) privacy::add_gaussian_noise(update, stddev_, util::derive_seed(seed_, "update", step));
}

void DevicePrivacy::noise_decoded(std::span<float> decoded, int64_t step) const {
  privacy::clip_to_norm(decoded, clip_);
  privacy::add_gaussian_noise(decoded, stddev_, util::derive_seed(seed_, "update", step));
}

AggregatePrivacy::AggregatePrivacy(const scenario::DpSpec& dp, uint64_t seed)
    : clip_(dp.clip), stddev_(dp.noise_multiplier * dp.clip), central_(!dp.noise_on_devices()), seed_(seed) {}

void AggregatePrivacy::bound(std::span<float> decoded) const {
  if (central_) privacy::clip_to_norm(decoded, clip_);
}

void AggregatePrivacy::noise_sum(std::span<float> sum, int64_t version) const {
  if (central_) privacy::add_gaussian_noise(sum, stddev_, util::derive_seed(seed_, "version", version));
}

}  // namespace edgetrain::backend
