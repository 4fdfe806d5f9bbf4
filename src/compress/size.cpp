// See size.hpp. Each formula restates the wire format its compressor writes with ByteWriter:
// fp32 values and u32 indices 4 bytes each, packed fields ceil(count x bits / 8) bytes per block.
#include "compress/size.hpp"

#include <algorithm>
#include <cmath>

#include "compress/kinds.hpp"
#include "compress/wire.hpp"

namespace edgetrain::compress {
namespace {

using detail::keep_count;

int64_t packed_bytes(int64_t count, int bits) { return (count * bits + 7) / 8; }

// k values and their indices into a block of n entries.
int64_t entries_bytes(int64_t k, int64_t n, bool packed) {
  return 4 * k + (packed ? packed_bytes(k, bits_for(static_cast<uint64_t>(n))) : 4 * k);
}

// Sum over the layers of `per_layer(n_l, layer)`.
template <typename F>
int64_t per_layer(const std::vector<Layer>& layers, F f) {
  int64_t bytes = 0;
  for (const Layer& l : layers) bytes += f(l.numel, l);
  return bytes;
}

}  // namespace

std::optional<int64_t> formula_payload_bytes(const Config& c, const std::vector<Layer>& layers) {
  if (c.kind == "threshold" || c.kind == "adacomp-bins") return std::nullopt;
  make_compressor(c, layers);  // the same checks of settings and layout as a real run
  const int64_t total = detail::layout_size(layers);
  if (c.kind == "none") return 4 * total;
  if (c.kind == "fp16") return 2 * total;
  if ((c.kind == "topk" && c.scope == "layer") || c.kind == "adacomp") {
    return per_layer(
        layers, [&](int64_t n, const Layer&) { return entries_bytes(keep_count(c.ratio, n), n, c.packed_indices); });
  }
  if (c.kind == "topk") return entries_bytes(keep_count(c.ratio, total), total, c.packed_indices);  // global
  if (c.kind == "randomk")
    return per_layer(layers, [&](int64_t n, const Layer&) { return 4 * keep_count(c.ratio, n); });
  if (c.kind == "qsgd") {
    const int bits = bits_for(static_cast<uint64_t>(c.levels) + 1) + 1;
    return per_layer(layers, [&](int64_t n, const Layer&) { return 4 + packed_bytes(n, bits); });
  }
  if (c.kind == "terngrad") return per_layer(layers, [](int64_t n, const Layer&) { return 4 + packed_bytes(n, 2); });
  if (c.kind == "signsgd") return per_layer(layers, [](int64_t n, const Layer&) { return 4 + packed_bytes(n, 1); });
  if (c.kind == "onebit") return per_layer(layers, [](int64_t n, const Layer&) { return 8 + packed_bytes(n, 1); });
  if (c.kind == "powersgd") {
    // A matrix layer (2+ dimensions, m = shape[0] rows) sends P (m x r') and Q (n x r'),
    // r' = min(rank, m, n); other layers travel raw.
    return per_layer(layers, [&](int64_t numel, const Layer& l) {
      if (l.shape.size() < 2 || numel == 0) return 4 * numel;
      const int64_t m = l.shape[0], n = numel / m;
      return 4 * std::min({c.rank, m, n}) * (m + n);
    });
  }
  throw ConfigError("kind", "no size formula for compressor \"" + c.kind + "\"");  // make_compressor knows it
}

int64_t declared_payload_bytes(const std::vector<Layer>& layers, double ratio) {
  return std::llround(ratio * 4.0 * static_cast<double>(detail::layout_size(layers)));
}

}  // namespace edgetrain::compress
