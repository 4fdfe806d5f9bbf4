// The part of the model that travels when not all of it does (personalisation keeps a head or the
// normalisation layers on each device; split learning keeps the server's layers on the server): those
// tensors as a compact layout of their own, which the part's encoder and decoder see, gathered from and
// scattered into the model's flat vector. Plain C++.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "compress/compressor.hpp"

namespace edgetrain::backend {

class TravellingPart {
 public:
  // `stays`, per tensor of `layers` (the model's layout): true for a tensor that does not travel.
  TravellingPart(const std::vector<compress::Layer>& layers, const std::vector<bool>& stays);

  // The travelling tensors, laid out one after another (what an encoder of the part is made with).
  const std::vector<compress::Layer>& layout() const { return compact_; }
  int64_t size() const { return size_; }
  // The travelling values of `full` into `part` (size()).
  void gather(std::span<const float> full, std::span<float> part) const;
  // `part` into the travelling values of `full`, the others set to 0 (an update that leaves them alone).
  void scatter(std::span<const float> part, std::span<float> full) const;
  // The values that stay, copied from `from` into `to` (both the model's size).
  void copy_staying(std::span<const float> from, std::span<float> to) const;
  // Zeroes the values that stay, or those that travel, in `full`.
  void zero_staying(std::span<float> full) const;
  void zero_travelling(std::span<float> full) const;

 private:
  struct Range {
    int64_t from = 0, numel = 0;  // in the model's vector
  };
  std::vector<compress::Layer> compact_;
  std::vector<Range> travelling_, staying_;
  int64_t size_ = 0;
};

}  // namespace edgetrain::backend
