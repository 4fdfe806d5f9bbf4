// Dense "compressors": every entry travels. `none` is the uncompressed baseline (the bytes a plain
// fp32 update costs) and `fp16` halves it by rounding each entry to IEEE 754 binary16. The
// conversion is written out here (round to nearest, ties to even; overflow to +-inf; subnormal
// halves kept) so this file needs no LibTorch.
//
// Wire formats (little endian, N = total entries of the layers, in layer order):
//   none: N f32 values               (4 N bytes)
//   fp16: N binary16 values as u16   (2 N bytes)
#include <bit>
#include <cmath>

#include "compress/compressor.hpp"
#include "compress/kinds.hpp"
#include "compress/wire.hpp"

namespace edgetrain::compress {

namespace {

uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) {  // inf, or NaN (kept quiet, with the top payload bits)
    return a == 0x7f800000u ? static_cast<uint16_t>(sign | 0x7c00u)
                            : static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  }
  // 65520 is halfway between the largest half (65504, odd mantissa) and 2^16: ties to even
  // round it, and everything above, to infinity.
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  uint32_t h, rest, halfway;
  if (a >= 0x38800000u) {  // >= 2^-14: a normal half; rebias the exponent by 127 - 15
    const uint32_t v = a - 0x38000000u;
    h = v >> 13;
    rest = v & 0x1fffu;
    halfway = 0x1000u;
  } else {
    // Subnormal half: the value in units of 2^-24 is the 24-bit significand shifted right by
    // 126 - exponent. At or below 2^-25 (half of the smallest subnormal, ties to 0) it is 0.
    if (a <= 0x33000000u) return sign;
    const uint32_t significand = (a & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - (a >> 23);  // 14 .. 24
    h = significand >> shift;
    rest = significand & ((1u << shift) - 1);
    halfway = 1u << (shift - 1);
  }
  // Round to nearest, ties to even; a carry into the exponent field is the correct next value.
  if (rest > halfway || (rest == halfway && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24, exact in float
    const float v = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -v : v;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// Every entry travels, one after another, each through the same fixed-width Codec.
template <typename Codec>
class Dense final : public Compressor {
 public:
  explicit Dense(const std::vector<Layer>& layers) : Compressor(detail::layout_size(layers)) {}

  Encoded encode(std::span<const float> update, const Context&) override {
    detail::check_update_size(update.size(), size());
    Encoded e;
    uint8_t* p = ByteWriter(e.payload).extend(Codec::bytes * update.size());
    for (size_t i = 0; i < update.size(); ++i) Codec::store(p + Codec::bytes * i, update[i]);
    return e;
  }

 protected:
  void decode_to(std::span<const uint8_t> payload, const Context&, const Sink& sink) const override {
    ByteReader r(payload);
    const uint8_t* p = r.take(Codec::bytes * static_cast<size_t>(size()));
    r.expect_end();
    sink.fill(0, static_cast<size_t>(size()), [p](size_t i) { return Codec::load(p + Codec::bytes * i); });
  }
};

struct Fp32Codec {
  static constexpr size_t bytes = 4;
  static void store(uint8_t* p, float v) { store_f32(p, v); }
  static float load(const uint8_t* p) { return load_f32(p); }
};

// Every 16-bit pattern is a valid half (inf and NaN included), so only the length can be wrong.
struct Fp16Codec {
  static constexpr size_t bytes = 2;
  static void store(uint8_t* p, float v) { store_u16(p, float_to_half(v)); }
  static float load(const uint8_t* p) { return half_to_float(load_u16(p)); }
};

}  // namespace

std::unique_ptr<Compressor> make_none(const Config&, const std::vector<Layer>& layers) {
  return std::make_unique<Dense<Fp32Codec>>(layers);
}

std::unique_ptr<Compressor> make_fp16(const Config&, const std::vector<Layer>& layers) {
  return std::make_unique<Dense<Fp16Codec>>(layers);
}

}  // namespace edgetrain::compress
