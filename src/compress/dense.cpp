// Dense "compressors": every entry travels. `none` is the uncompressed baseline (the bytes a plain
// fp32 update costs) and `fp16` halves it by rounding each entry to IEEE 754 binary16. The
// conversion is written out here (round to nearest, ties to even; overflow to +-inf; subnormal
// halves kept) so this file needs no LibTorch.
//
// Wire formats (little endian, N = total entries of the layers, in layer order):
//   none: N f32 values               (4 N bytes)
//   fp16: N binary16 values as u16   (2 N bytes)
// none_bytes and fp16_bytes (at the end) give these lengths to timing-only runs.
#include <bit>
#include <cmath>
#include <vector>

#include "compress/compressor.hpp"
#include "compress/family.hpp"
#include "compress/wire.hpp"

namespace edgetrain::compress {

namespace {

uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t a = x & 0x7fffffffu;
  // 65520 is halfway between the largest half (65504, odd mantissa) and 2^16: ties to even
  // round it, and everything above, to infinity. NaN stays quiet, with the top payload bits.
  if (a >= 0x477ff000u) {
    return a > 0x7f800000u ? static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu))
                           : static_cast<uint16_t>(sign | 0x7c00u);
  }
  // Both roundings, then a select (no branch on data that mixes them). A normal half (>= 2^-14):
  // rebias the exponent by 127 - 15 and round the 13 dropped bits to nearest, ties to even (a
  // carry into the exponent field is the correct next value). A subnormal half, or 0: adding 0.5
  // puts the value in units of 2^-24 into the low mantissa bits, rounded to nearest even by the
  // float addition itself (exact for every input below 2^-14, whatever FTZ/DAZ say).
  const uint32_t v = a - 0x38000000u;
  const uint32_t normal = (v + 0xfffu + ((v >> 13) & 1u)) >> 13;
  const uint32_t subnormal = std::bit_cast<uint32_t>(std::bit_cast<float>(a) + 0.5f) - 0x3f000000u;
  return static_cast<uint16_t>(sign | (a >= 0x38800000u ? normal : subnormal));
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
    const auto load = Codec::loader();
    sink.fill(0, static_cast<size_t>(size()), [p, load](size_t i) { return load(p + Codec::bytes * i); });
  }
};

struct Fp32Codec {
  static constexpr size_t bytes = 4;
  static void store(uint8_t* p, float v) { store_f32(p, v); }
  static auto loader() {
    return [](const uint8_t* p) { return load_f32(p); };
  }
};

// Every 16-bit pattern is a valid half (inf and NaN included), so only the length can be wrong.
// Decoding looks each pattern up in a table of all 65,536 (built once, on first use).
struct Fp16Codec {
  static constexpr size_t bytes = 2;
  static void store(uint8_t* p, float v) { store_u16(p, float_to_half(v)); }
  static auto loader() {
    static const std::vector<float> table = [] {
      std::vector<float> t(65536);
      for (uint32_t h = 0; h < t.size(); ++h) t[h] = half_to_float(static_cast<uint16_t>(h));
      return t;
    }();
    return [halves = table.data()](const uint8_t* p) { return halves[load_u16(p)]; };
  }
};

}  // namespace

std::unique_ptr<Compressor> make_none(const Config&, const std::vector<Layer>& layers) {
  return std::make_unique<Dense<Fp32Codec>>(layers);
}

std::unique_ptr<Compressor> make_fp16(const Config&, const std::vector<Layer>& layers) {
  return std::make_unique<Dense<Fp16Codec>>(layers);
}

int64_t none_bytes(const Config&, const std::vector<Layer>& layers) {
  return int64_t{Fp32Codec::bytes} * detail::layout_size(layers);
}

int64_t fp16_bytes(const Config&, const std::vector<Layer>& layers) {
  return int64_t{Fp16Codec::bytes} * detail::layout_size(layers);
}

}  // namespace edgetrain::compress
