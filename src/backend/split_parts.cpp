// See split_parts.hpp.
#include "backend/split_parts.hpp"

namespace edgetrain::backend {

namespace {
std::vector<bool> negated(const std::vector<bool>& v) {
  std::vector<bool> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = !v[i];
  return out;
}
}  // namespace

SplitParts::SplitParts(const std::vector<compress::Layer>& layers, const std::vector<bool>& server_tensors)
    : server_(layers, negated(server_tensors)) {}

std::vector<float> SplitParts::server_values(std::span<const float> full) const {
  std::vector<float> out(static_cast<size_t>(server_.size()));
  server_.gather(full, out);
  return out;
}

void SplitParts::join(const TravellingPart& device, std::span<const float> device_part,
                      std::span<const float> server_part, std::span<float> full, std::vector<float>& scratch) const {
  device.scatter(device_part, full);  // the server's values are 0 here ...
  scratch.resize(full.size());
  server_.scatter(server_part, scratch);
  device.copy_staying(scratch, full);  // ... and taken from its part
}

}  // namespace edgetrain::backend
