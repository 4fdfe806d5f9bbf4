// The decoding entry points every compressor shares: a new vector, a caller's buffer, or a
// subtraction from a caller's vector (error feedback), all through the scheme's decode_to().
#include "compress/compressor.hpp"

#include <algorithm>
#include <string>

namespace edgetrain::compress {

namespace {

void check_output_size(size_t got, int64_t size) {
  if (static_cast<int64_t>(got) != size) {
    throw CompressError("compress: the output has " + std::to_string(got) + " entries, the layers hold " +
                        std::to_string(size));
  }
}

}  // namespace

std::vector<float> Compressor::decode(std::span<const uint8_t> payload, const Context& context) const {
  std::vector<float> out(static_cast<size_t>(size_), 0.0f);
  decode_to(payload, context, Sink{out, false});
  return out;
}

void Compressor::decode_into(std::span<const uint8_t> payload, const Context& context, std::span<float> out) const {
  check_output_size(out.size(), size_);
  if (sparse()) std::fill(out.begin(), out.end(), 0.0f);
  decode_to(payload, context, Sink{out, false});
}

void Compressor::subtract_decoded(std::span<const uint8_t> payload, const Context& context,
                                  std::span<float> target) const {
  check_output_size(target.size(), size_);
  decode_to(payload, context, Sink{target, true});
}

}  // namespace edgetrain::compress
