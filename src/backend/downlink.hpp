// The server -> device direction of compression. Without it the server sends every device the
// dense fp32 model each round. With it, the first round still sends the dense model, and later
// rounds send the compressed DELTA between the current model and the copy that device holds;
// the server tracks each copy (applying exactly what the device will decode), so lossy
// compression makes devices train on an approximate model, as it would in reality. The delta
// to the device's copy already carries whatever earlier deltas left out, so the downlink has
// built-in error feedback and ignores compression.downlink.error_feedback.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "compress/compressor.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::backend {

// Server side, one per device.
class DownlinkEncoder {
 public:
  DownlinkEncoder(const scenario::CompressorSpec& spec, const std::vector<compress::Layer>& layers, uint64_t seed);
  // Empty optional: send the dense model (first round). Otherwise the encoded delta payload.
  std::optional<std::vector<uint8_t>> next(const std::vector<float>& model, int64_t round);

 private:
  std::unique_ptr<compress::Compressor> compressor_;
  std::vector<float> replica_;  // what the device holds after decoding
  uint64_t seed_;
};

// Device side: the device's copy of the model.
class DownlinkReplica {
 public:
  DownlinkReplica(const scenario::CompressorSpec& spec, const std::vector<compress::Layer>& layers, uint64_t seed);
  void set(const std::vector<float>& model) { params_ = model; }
  void apply_delta(std::span<const uint8_t> payload, int64_t round);
  const std::vector<float>& params() const { return params_; }

 private:
  std::unique_ptr<compress::Compressor> decoder_;
  std::vector<float> params_;
  uint64_t seed_;
};

}  // namespace edgetrain::backend
