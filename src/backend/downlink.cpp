// See downlink.hpp.
#include "backend/downlink.hpp"

namespace edgetrain::backend {
namespace {

// The downlink's compressor; a bad setting names its key in compression.downlink.
std::unique_ptr<compress::Compressor> make_downlink(const scenario::CompressorSpec& spec,
                                                    const std::vector<compress::Layer>& layers) {
  try {
    return compress::make_compressor(spec, layers);
  } catch (const compress::ConfigError& e) {
    throw compress::ConfigError(e.setting(), e.detail(), "compression.downlink");
  }
}

}  // namespace

DownlinkEncoder::DownlinkEncoder(const scenario::CompressorSpec& spec, const std::vector<compress::Layer>& layers,
                                 uint64_t seed)
    : compressor_(make_downlink(spec, layers)), seed_(seed) {}

std::optional<std::vector<uint8_t>> DownlinkEncoder::next(const std::vector<float>& model, int64_t round) {
  if (replica_.empty()) {
    replica_ = model;
    return std::nullopt;
  }
  std::vector<float> delta(model.size());
  for (size_t k = 0; k < model.size(); ++k) delta[k] = model[k] - replica_[k];
  const compress::Context context{seed_, round};
  compress::Encoded encoded = compressor_->encode(delta, context);
  const std::vector<float> decoded = compressor_->decode(encoded.payload, context);
  for (size_t k = 0; k < model.size(); ++k) replica_[k] += decoded[k];
  return std::move(encoded.payload);
}

DownlinkReplica::DownlinkReplica(const scenario::CompressorSpec& spec, const std::vector<compress::Layer>& layers,
                                 uint64_t seed)
    : decoder_(make_downlink(spec, layers)), seed_(seed) {}

void DownlinkReplica::apply_delta(std::span<const uint8_t> payload, int64_t round) {
  const std::vector<float> decoded = decoder_->decode(payload, compress::Context{seed_, round});
  for (size_t k = 0; k < params_.size(); ++k) params_[k] += decoded[k];
}

}  // namespace edgetrain::backend
