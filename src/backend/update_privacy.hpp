// Differential privacy applied to the real updates (privacy.dp, docs/explanation/privacy.md): what a
// device does to its update before it leaves (clipping, and its share of the noise before or after
// compression) and what the aggregator does to a round (bounding each decoded update, the central
// noise on the sum). Seeded streams per device and per model version: the same noise whatever the
// thread count.
#pragma once

#include <cstdint>
#include <span>

#include "scenario/scenario.hpp"

namespace edgetrain::backend {

class DevicePrivacy {
 public:
  DevicePrivacy(const scenario::DpSpec& dp, double noise_stddev, uint64_t seed);
  // Before the update is encoded: clipped to the bound, and noised when the noise goes first.
  void before_encoding(std::span<float> update, int64_t step) const;
  // Whether the device decodes its own encoding, noises it and sends that dense (noise on the device
  // after compression).
  bool noises_decoded() const { return noise_after_; }
  // The decoded update clipped again (compression and error feedback may lengthen it) and noised.
  void noise_decoded(std::span<float> decoded, int64_t step) const;

 private:
  double clip_, stddev_;
  bool noise_first_, noise_after_;
  uint64_t seed_;
};

class AggregatePrivacy {
 public:
  AggregatePrivacy(const scenario::DpSpec& dp, uint64_t seed);
  // A decoded update bounded to the clip: the sensitivity the noise assumes, whatever compression did.
  void bound(std::span<float> decoded) const;
  // Central DP: N(0, (noise_multiplier x clip)^2) on each coordinate of a round's sum, from the stream
  // of the model version it makes.
  void noise_sum(std::span<float> sum, int64_t version) const;

 private:
  double clip_, stddev_;
  bool central_;
  uint64_t seed_;
};

}  // namespace edgetrain::backend
