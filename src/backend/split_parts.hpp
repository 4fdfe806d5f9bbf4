// Split learning (strategy.kind splitfed): the server's part of the model. The device's update carries its
// part's delta (the travelling part: ChargedModel::stays marks the server's tensors), compressed by the
// uplink's encoder made on that part's compact layout; the server's part of the delta was computed on the
// server (SFLV1's server-side copy per device) and rides along raw, uncharged. Plain C++.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backend/travelling_part.hpp"

namespace edgetrain::backend {

class SplitParts {
 public:
  // `server_tensors`, per tensor of `layers` (the model's layout): true for the server's.
  SplitParts(const std::vector<compress::Layer>& layers, const std::vector<bool>& server_tensors);
  // The server's values of `full`, compactly.
  std::vector<float> server_values(std::span<const float> full) const;
  // `full` (the model's size) <- the device's part (of `device`, the travelling part) and the server's part;
  // `scratch` is the store's own buffer.
  void join(const TravellingPart& device, std::span<const float> device_part, std::span<const float> server_part,
            std::span<float> full, std::vector<float>& scratch) const;

 private:
  TravellingPart server_;
};

}  // namespace edgetrain::backend
