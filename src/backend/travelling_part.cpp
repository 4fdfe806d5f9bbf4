// See travelling_part.hpp.
#include "backend/travelling_part.hpp"

#include <algorithm>

namespace edgetrain::backend {

TravellingPart::TravellingPart(const std::vector<compress::Layer>& layers, const std::vector<bool>& stays) {
  for (size_t i = 0; i < layers.size(); ++i) {
    const compress::Layer& l = layers[i];
    if (stays.at(i)) {
      staying_.push_back({l.offset, l.numel});
      continue;
    }
    compress::Layer c = l;
    c.offset = size_;
    compact_.push_back(std::move(c));
    travelling_.push_back({l.offset, l.numel});
    size_ += l.numel;
  }
}

void TravellingPart::gather(std::span<const float> full, std::span<float> part) const {
  float* out = part.data();
  for (const Range& r : travelling_) out = std::copy_n(full.data() + r.from, r.numel, out);
}

void TravellingPart::scatter(std::span<const float> part, std::span<float> full) const {
  const float* in = part.data();
  for (const Range& r : travelling_) {
    std::copy_n(in, r.numel, full.data() + r.from);
    in += r.numel;
  }
  zero_staying(full);
}

void TravellingPart::copy_staying(std::span<const float> from, std::span<float> to) const {
  for (const Range& r : staying_) std::copy_n(from.data() + r.from, r.numel, to.data() + r.from);
}

void TravellingPart::zero_staying(std::span<float> full) const {
  for (const Range& r : staying_) std::fill_n(full.data() + r.from, r.numel, 0.0f);
}

void TravellingPart::zero_travelling(std::span<float> full) const {
  for (const Range& r : travelling_) std::fill_n(full.data() + r.from, r.numel, 0.0f);
}

}  // namespace edgetrain::backend
