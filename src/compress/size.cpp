// See size.hpp. The formulas are the kinds table's, each beside the wire format it restates in
// its family file.
#include "compress/size.hpp"

#include <cmath>

#include "compress/kinds.hpp"

namespace edgetrain::compress {

std::optional<int64_t> formula_payload_bytes(const Config& c, const std::vector<Layer>& layers) {
  const Kind& kind = kind_named(c.kind);
  if (!kind.payload_bytes) return std::nullopt;
  kind.make(c, layers);  // the same checks of settings and layout as a real run
  return kind.payload_bytes(c, layers);
}

int64_t declared_payload_bytes(const std::vector<Layer>& layers, double ratio) {
  return std::llround(ratio * 4.0 * static_cast<double>(detail::layout_size(layers)));
}

std::optional<int64_t> planned_payload_bytes(const Config& config, const std::vector<Layer>& layers) {
  if (const std::optional<int64_t> bytes = formula_payload_bytes(config, layers)) return bytes;
  if (config.timing_ratio) return declared_payload_bytes(layers, *config.timing_ratio);
  return std::nullopt;
}

}  // namespace edgetrain::compress
