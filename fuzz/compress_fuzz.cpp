// Fuzz target: every compressor's decoder on arbitrary bytes.
//
// Input: a kind byte, a settings byte, then the payload.
//   kind byte: one of the twelve kinds (modulo), and with bit 7 the second layer layout
//   settings byte: bit 0 packed indices, bit 1 global top-k scope, bits 2-4 the ratio, bits 5-7 the
//                  qsgd levels and the powersgd rank (small tables below)
// The layouts are small and fixed: a conv kernel, a bias, an empty layer and a matrix; or one
// entry, then a 3 x 5 matrix. A decoder either returns a vector of the layout's size or throws
// CompressError: no other exception, no out-of-bounds access, no huge allocation, no hang. The
// quantisers and PowerSGD reject non-finite values, so what they return is finite.
// fuzz.sh: -max_len=4096
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "compress/compressor.hpp"

namespace {

using edgetrain::compress::CompressError;
using edgetrain::compress::Config;
using edgetrain::compress::Context;
using edgetrain::compress::Layer;

const char* const kKinds[] = {"none",         "fp16", "topk",     "randomk", "threshold", "adacomp",
                              "adacomp-bins", "qsgd", "terngrad", "signsgd", "onebit",    "powersgd"};
constexpr size_t kKindCount = sizeof(kKinds) / sizeof(kKinds[0]);
const double kRatios[] = {0.01, 0.1, 0.25, 0.29, 0.5, 0.9, 1.0, 1e-9};
const int64_t kLevels[] = {1, 2, 3, 7, 16, 255, 65536, int64_t{1} << 31};
const int64_t kRanks[] = {1, 2, 3, 4, 5, 8, 16, 100};

std::vector<Layer> layout(bool second) {
  if (second) return {{"one", {1}, 0, 1}, {"m", {3, 5}, 1, 15}};
  return {{"conv", {4, 2, 3, 3}, 0, 72}, {"bias", {4}, 72, 4}, {"empty", {0, 3}, 76, 0}, {"fc", {10, 7}, 76, 70}};
}

bool rejects_non_finite(const std::string& kind) {
  return kind == "qsgd" || kind == "terngrad" || kind == "signsgd" || kind == "onebit" || kind == "powersgd";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  Config config;
  config.kind = kKinds[(data[0] & 0x7f) % kKindCount];
  config.packed_indices = data[1] & 1;
  config.scope = data[1] & 2 ? "global" : "layer";
  config.ratio = kRatios[(data[1] >> 2) & 7];
  config.levels = kLevels[data[1] >> 5];
  config.rank = kRanks[data[1] >> 5];
  const std::vector<Layer> layers = layout(data[0] & 0x80);
  const auto compressor = edgetrain::compress::make_compressor(config, layers);  // valid settings: must not throw
  const std::span<const uint8_t> payload(data + 2, size - 2);
  std::vector<float> decoded;
  try {
    decoded = compressor->decode(payload, Context{.seed = 7, .step = data[0]});
  } catch (const CompressError&) {
    return 0;
  }
  const int64_t expected = layers.back().offset + layers.back().numel;
  if (static_cast<int64_t>(decoded.size()) != expected) {
    std::fprintf(stderr, "compress_fuzz: %s decoded %zu entries, the layout has %lld\n", config.kind.c_str(),
                 decoded.size(), static_cast<long long>(expected));
    std::abort();
  }
  if (rejects_non_finite(config.kind)) {
    for (size_t i = 0; i < decoded.size(); ++i) {
      if (!std::isfinite(decoded[i])) {
        std::fprintf(stderr, "compress_fuzz: %s decoded a non-finite entry %zu (%g)\n", config.kind.c_str(), i,
                     static_cast<double>(decoded[i]));
        std::abort();
      }
    }
  }
  return 0;
}
