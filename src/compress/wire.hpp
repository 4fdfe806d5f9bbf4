// Byte-level encoding helpers shared by the compressors: little-endian fixed-width values and
// bit-packed fields (LSB first within each byte). Every payload is built with these, so its
// length is exactly what the wire-size formulas of docs/how-to/compression.md say.
#pragma once

#include <bit>
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

// Little-endian stores and loads of fixed-width values at a byte pointer.
inline void store_u32(uint8_t* p, uint32_t v) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(p, &v, 4);
  } else {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
  }
}
inline uint32_t load_u32(const uint8_t* p) {
  uint32_t v = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&v, p, 4);
  } else {
    for (int i = 0; i < 4; ++i) v |= uint32_t{p[i]} << (8 * i);
  }
  return v;
}
inline void store_f32(uint8_t* p, float v) { store_u32(p, std::bit_cast<uint32_t>(v)); }
inline float load_f32(const uint8_t* p) { return std::bit_cast<float>(load_u32(p)); }
inline void store_u16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline uint16_t load_u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

// Bytes needed for `count` packed values of `bits` bits.
inline size_t packed_bytes(size_t count, int bits) { return (count * static_cast<size_t>(bits) + 7) / 8; }

// Writes values of up to 64 bits each, LSB first, into a region of exactly packed_bytes()
// bytes: bit b of the i-th value of width w lands at stream bit (sum of earlier widths) + b.
class BitWriter {
 public:
  explicit BitWriter(uint8_t* out) : out_(out) {}
  void put(uint64_t v, int bits) {
    if (bits < 64) v &= (uint64_t{1} << bits) - 1;
    acc_ |= v << filled_;
    if (filled_ + bits >= 64) {
      flush_word();
      acc_ = filled_ == 0 ? 0 : v >> (64 - filled_);
      filled_ = filled_ + bits - 64;
    } else {
      filled_ += bits;
    }
  }
  // Writes the last, partly filled bytes (padded with zero bits).
  void finish() {
    for (; filled_ > 0; filled_ -= 8, acc_ >>= 8) *out_++ = static_cast<uint8_t>(acc_);
    filled_ = 0;
  }

 private:
  void flush_word() {
    for (int i = 0; i < 8; ++i) out_[i] = static_cast<uint8_t>(acc_ >> (8 * i));
    out_ += 8;
  }
  uint8_t* out_;
  uint64_t acc_ = 0;
  int filled_ = 0;  // bits of acc_ in use, < 64
};

// Reads what BitWriter wrote from a region the caller has bounds-checked (`size` bytes).
class BitReader {
 public:
  BitReader(const uint8_t* in, size_t size) : in_(in), end_(in + size) {}
  uint64_t get(int bits) {
    if (bits > 56) {
      const uint64_t low = get(32);
      return low | (get(bits - 32) << 32);
    }
    while (filled_ < bits) {
      acc_ |= uint64_t{in_ < end_ ? *in_++ : uint8_t{0}} << filled_;
      filled_ += 8;
    }
    const uint64_t v = acc_ & ((uint64_t{1} << bits) - 1);
    acc_ >>= bits;
    filled_ -= bits;
    return v;
  }

 private:
  const uint8_t* in_;
  const uint8_t* end_;
  uint64_t acc_ = 0;
  int filled_ = 0;
};

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : out_(out) {}
  // Appends n bytes for the caller to fill; the pointer is valid until the next append.
  uint8_t* extend(size_t n) {
    const size_t at = out_.size();
    out_.resize(at + n);
    return out_.data() + at;
  }
  void u32(uint32_t v) { store_u32(extend(4), v); }
  void f32(float v) { store_u32(extend(4), std::bit_cast<uint32_t>(v)); }
  void f32s(std::span<const float> values) {
    uint8_t* p = extend(4 * values.size());
    if constexpr (std::endian::native == std::endian::little) {
      if (!values.empty()) std::memcpy(p, values.data(), 4 * values.size());
    } else {
      for (float v : values) store_f32(p, v), p += 4;
    }
  }

 private:
  std::vector<uint8_t>& out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> in) : in_(in) {}
  // The next n bytes (checked to be there), consumed.
  const uint8_t* take(size_t n) {
    need(n);
    const uint8_t* p = in_.data() + pos_;
    pos_ += n;
    return p;
  }
  uint32_t u32() { return load_u32(take(4)); }
  float f32() { return load_f32(take(4)); }
  // A reader of `count` packed values of `bits` bits, the bytes consumed (checked) at once.
  BitReader packed_reader(size_t count, int bits) {
    const size_t bytes = packed_bytes(count, bits);
    return BitReader(take(bytes), bytes);
  }
  bool done() const { return pos_ == in_.size(); }
  // Decoders call this last: trailing bytes mean the payload does not match the config.
  void expect_end() const {
    if (!done())
      throw CompressError("compressed payload: " + std::to_string(in_.size() - pos_) + " unexpected trailing bytes");
  }

 private:
  void need(size_t n) const {
    if (n > in_.size() - pos_) throw CompressError("compressed payload: truncated");
  }
  std::span<const uint8_t> in_;
  size_t pos_ = 0;
};

}  // namespace edgetrain::compress
