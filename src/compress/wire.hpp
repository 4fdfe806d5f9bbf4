// Byte-level encoding helpers shared by the compressors: little-endian fixed-width values and
// bit-packed fields (LSB first within each byte). Every payload is built with these, so its
// length is exactly what the README's wire-size formulas say.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "compress/compressor.hpp"

namespace edgetrain::compress {

// Bits needed to store values 0 .. n-1 (at least 1).
inline int bits_for(uint64_t n) {
  int bits = 1;
  while (bits < 64 && (uint64_t{1} << bits) < n) ++bits;
  return bits;
}

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : out_(out) {}
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void f32(float v) {
    uint32_t u;
    std::memcpy(&u, &v, 4);
    u32(u);
  }
  void u16(uint16_t v) {
    out_.push_back(static_cast<uint8_t>(v));
    out_.push_back(static_cast<uint8_t>(v >> 8));
  }
  // Appends `count` values of `bits` bits each, packed, padded to a whole byte at the end.
  void packed(std::span<const uint64_t> values, int bits) {
    uint64_t acc = 0;
    int filled = 0;
    for (uint64_t v : values) {
      for (int b = 0; b < bits; ++b) {
        acc |= ((v >> b) & 1u) << filled;
        if (++filled == 8) {
          out_.push_back(static_cast<uint8_t>(acc));
          acc = 0;
          filled = 0;
        }
      }
    }
    if (filled > 0) out_.push_back(static_cast<uint8_t>(acc));
  }

 private:
  std::vector<uint8_t>& out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> in) : in_(in) {}
  uint32_t u32() {
    need(4);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{in_[pos_ + i]} << (8 * i);
    pos_ += 4;
    return v;
  }
  float f32() {
    const uint32_t u = u32();
    float v;
    std::memcpy(&v, &u, 4);
    return v;
  }
  uint16_t u16() {
    need(2);
    const uint16_t v = static_cast<uint16_t>(in_[pos_] | (in_[pos_ + 1] << 8));
    pos_ += 2;
    return v;
  }
  std::vector<uint64_t> packed(size_t count, int bits) {
    const size_t bytes = (count * static_cast<size_t>(bits) + 7) / 8;
    need(bytes);
    std::vector<uint64_t> values(count, 0);
    size_t bit = 0;
    for (size_t i = 0; i < count; ++i) {
      for (int b = 0; b < bits; ++b, ++bit) {
        values[i] |= uint64_t{(in_[pos_ + bit / 8] >> (bit % 8)) & 1u} << b;
      }
    }
    pos_ += bytes;
    return values;
  }
  bool done() const { return pos_ == in_.size(); }
  // Decoders call this last: trailing bytes mean the payload does not match the config.
  void expect_end() const {
    if (!done())
      throw CompressError("compressed payload: " + std::to_string(in_.size() - pos_) + " unexpected trailing bytes");
  }

 private:
  void need(size_t n) const {
    if (pos_ + n > in_.size()) throw CompressError("compressed payload: truncated");
  }
  std::span<const uint8_t> in_;
  size_t pos_ = 0;
};

}  // namespace edgetrain::compress
