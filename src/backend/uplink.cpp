// See uplink.hpp.
#include "backend/uplink.hpp"

namespace edgetrain::backend {

std::vector<compress::Layer> compress_layers(const std::vector<learn::LayerInfo>& layers) {
  std::vector<compress::Layer> out;
  for (const auto& l : layers) out.push_back({l.name, l.shape, l.offset, l.numel});
  return out;
}

namespace {
std::unique_ptr<compress::Compressor> dense_compressor(const std::vector<compress::Layer>& layers) {
  return compress::make_compressor(compress::Config{}, layers);  // kind none: fp32
}
}  // namespace

UplinkEncoder::UplinkEncoder(const scenario::CompressionSpec& spec, const std::vector<compress::Layer>& layers,
                             uint64_t seed)
    : compressor_(compress::make_compressor(spec.uplink, layers)),
      dense_(dense_compressor(layers)),
      adaptive_(spec.adaptive),
      spec_(spec.uplink),
      layers_(layers),
      seed_(seed) {
  int64_t size = 0;
  for (const auto& l : layers) size += l.numel;
  if (spec.uplink.error_feedback) feedback_.emplace(static_cast<size_t>(size));
}

EncodedUpdate UplinkEncoder::encode(std::span<const float> update, int64_t step) {
  const compress::Context context{seed_, step};
  // With error feedback the device compresses p = g + e (held in the feedback memory) and
  // remembers what did not get through.
  const std::span<const float> input = feedback_ ? feedback_->correct(update) : update;
  // A diverged step (NaN/Inf) goes dense: quantisers reject non-finite input, and the server
  // must see the loss to stop the run as diverged.
  bool compress_now = compress::all_finite(input);
  if (compress_now && adaptive_) {
    // ScaDLES: compress only while Top-k keeps almost all of the update's norm (smoothed).
    const double gap = compress::topk_norm_gap(input, layers_, spec_.ratio, spec_.scope);
    smoothed_gap_ = smoothed_gap_ ? adaptive_->smoothing * *smoothed_gap_ + (1 - adaptive_->smoothing) * gap : gap;
    compress_now = *smoothed_gap_ <= adaptive_->delta;
  }
  EncodedUpdate out;
  out.compressed = compress_now;
  compress::Compressor& codec = compress_now ? *compressor_ : *dense_;
  compress::Encoded encoded = codec.encode(input, context);
  if (feedback_) feedback_->remember(codec, encoded.payload, context);
  out.payload = std::move(encoded.payload);
  out.indices = std::move(encoded.indices);
  return out;
}

EncodedUpdate UplinkEncoder::encode_dense(std::span<const float> update, int64_t step) const {
  EncodedUpdate out;
  out.compressed = false;
  out.payload = dense_->encode(update, compress::Context{seed_, step}).payload;
  return out;
}

UplinkDecoder::UplinkDecoder(const scenario::CompressionSpec& spec, const std::vector<compress::Layer>& layers)
    : compressor_(compress::make_compressor(spec.uplink, layers)), dense_(dense_compressor(layers)) {}

void UplinkDecoder::decode_into(std::span<const uint8_t> payload, bool compressed, uint64_t device_seed, int64_t step,
                                std::span<float> out) const {
  (compressed ? compressor_ : dense_)->decode_into(payload, compress::Context{device_seed, step}, out);
}

}  // namespace edgetrain::backend
