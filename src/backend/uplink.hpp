// The device -> server direction of compression: the device's encoder (with its error-feedback
// memory and ScaDLES adaptive switch) and the server's decoder. What the device sends is the
// real encoding of its update; the server decodes those bytes before aggregating.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "compress/compressor.hpp"
#include "learn/model.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::backend {

std::vector<compress::Layer> compress_layers(const std::vector<learn::LayerInfo>& layers);

struct EncodedUpdate {
  std::vector<uint8_t> payload;
  bool compressed = true;                     // false: dense fp32 (adaptive compression chose not to compress)
  std::vector<std::vector<int64_t>> indices;  // sparse schemes: the index sets sent
};

class UplinkEncoder {
 public:
  UplinkEncoder(const scenario::CompressionSpec& spec, const std::vector<compress::Layer>& layers, uint64_t seed);
  EncodedUpdate encode(std::span<const float> update, int64_t step);
  // Dense fp32, outside compression and its memory (what a device sends once it noised its decoded update).
  EncodedUpdate encode_dense(std::span<const float> update, int64_t step) const;
  bool adaptive() const { return adaptive_.has_value(); }

 private:
  std::unique_ptr<compress::Compressor> compressor_, dense_;
  std::optional<compress::ErrorFeedback> feedback_;
  std::optional<scenario::AdaptiveSpec> adaptive_;
  scenario::CompressorSpec spec_;
  std::vector<compress::Layer> layers_;
  uint64_t seed_;
  std::optional<double> smoothed_gap_;
};

class UplinkDecoder {
 public:
  UplinkDecoder(const scenario::CompressionSpec& spec, const std::vector<compress::Layer>& layers);
  // Decodes an update's payload into `out` (the model's size), without allocating.
  void decode_into(std::span<const uint8_t> payload, bool compressed, uint64_t device_seed, int64_t step,
                   std::span<float> out) const;

 private:
  std::unique_ptr<compress::Compressor> compressor_, dense_;
};

}  // namespace edgetrain::backend
