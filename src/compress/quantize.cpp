// Quantising compressors: every element is kept, but in a few bits, with one or two fp32
// scales per layer. Each Layer of the layout is quantised on its own (its own scale), and the
// payload is the layers' records one after another, in layout order, each padded to a whole
// byte. Wire formats per layer of n_l elements (fp32 and packed bits as in wire.hpp):
//   qsgd:     f32 ||v||_2, then per element (sign | level << 1) in bits_for(s+1)+1 bits (sign 0 on level 0)
//             -> 4 + ceil(n_l (1 + bits_for(s+1)) / 8) bytes
//   terngrad: f32 s_t = max|v_i|, then per element 2 bits (0: 0, 1: +1, 2: -1)
//             -> 4 + ceil(2 n_l / 8) bytes
//   signsgd:  f32 ||v||_1 / n_l, then per element 1 bit (1: v_i >= 0)
//             -> 4 + ceil(n_l / 8) bytes
//   onebit:   f32 mean of the v_i >= 0, f32 mean of the v_i < 0 (0 if none), then per element
//             1 bit (1: v_i >= 0)  -> 8 + ceil(n_l / 8) bytes
// qsgd and terngrad round stochastically (unbiased) with a generator derived from
// (context.seed, context.step, layer index), so a payload is reproducible; decoding needs no
// randomness. signsgd and onebit are biased: the caller adds error feedback (ErrorFeedback).
// Encoders reject non-finite updates: a scale of inf or NaN would silently poison every
// element of its layer, and decoders reject such scales as malformed.
// Each quantiser's layer_bytes() restates its record's length; the *_bytes size formulas (at the
// end) give the payload's to timing-only runs.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "compress/compressor.hpp"
#include "compress/family.hpp"
#include "compress/wire.hpp"
#include "util/seed.hpp"

namespace edgetrain::compress {

namespace {

// Uniform in [0, 1) from the top 53 bits: unlike std::uniform_real_distribution, the same on
// every standard library.
double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Rounds x >= 0 to floor(x) or floor(x) + 1 with E[result] = x. (x is at most a level count,
// far below 2^63: truncation is the floor, without a libm call.)
uint64_t stochastic_round(double x, std::mt19937_64& rng) {
  const auto low = static_cast<double>(static_cast<int64_t>(x));
  return static_cast<uint64_t>(low) + (uniform01(rng) < x - low ? 1 : 0);
}

float checked_scale(double value, const Layer& layer, const char* what) {
  const auto f = static_cast<float>(value);
  if (!std::isfinite(f))
    throw CompressError("compress: " + std::string(what) + " of layer \"" + layer.name + "\" is not finite in fp32");
  return f;
}

float read_scale(ByteReader& in, bool allow_negative, bool allow_positive) {
  const float v = in.f32();
  if (!std::isfinite(v) || (!allow_negative && v < 0) || (!allow_positive && v > 0))
    throw CompressError("compressed payload: bad scale " + std::to_string(v));
  return v;
}

// Shared frame: layout checks, per-layer iteration over the flat vector. Subclasses encode and
// decode one layer; codes are packed as they are computed.
class LayerwiseQuantizer : public Compressor {
 public:
  LayerwiseQuantizer(const std::vector<Layer>& layers, const char* tag)
      : Compressor(detail::layout_size(layers)), layers_(layers), tag_(tag) {}

  // The length of every payload: the layers' records.
  size_t payload_bytes() const {
    size_t bytes = 0;
    for (const Layer& layer : layers_) bytes += layer_bytes(static_cast<size_t>(layer.numel));
    return bytes;
  }

  Encoded encode(std::span<const float> update, const Context& context) override {
    detail::check_update_size(update.size(), size());
    detail::check_finite(update);
    Encoded out;
    out.payload.reserve(payload_bytes());
    ByteWriter writer(out.payload);
    // One stream per (step, layer): independent of how many draws other layers made.
    const uint64_t step_seed = util::derive_seed(context.seed, tag_, static_cast<uint64_t>(context.step));
    for (size_t li = 0; li < layers_.size(); ++li) {
      const Layer& layer = layers_[li];
      std::mt19937_64 rng(util::derive_seed(step_seed, "layer", li));
      encode_layer(update.subspan(static_cast<size_t>(layer.offset), static_cast<size_t>(layer.numel)), layer, writer,
                   rng);
    }
    return out;
  }

 protected:
  void decode_to(std::span<const uint8_t> payload, const Context&, const Sink& sink) const override {
    ByteReader reader(payload);
    for (const Layer& layer : layers_) {
      decode_layer(reader, sink, static_cast<size_t>(layer.offset), static_cast<size_t>(layer.numel));
    }
    reader.expect_end();
  }

  // The bytes of one layer's record (the wire-format formula), so the payload is allocated once.
  virtual size_t layer_bytes(size_t n) const = 0;
  virtual void encode_layer(std::span<const float> v, const Layer& layer, ByteWriter& out, std::mt19937_64& rng) = 0;
  // Decodes the n entries of one layer into sink.out[offset, offset + n).
  virtual void decode_layer(ByteReader& in, const Sink& sink, size_t offset, size_t n) const = 0;

 private:
  std::vector<Layer> layers_;
  const char* tag_;
};

class Qsgd final : public LayerwiseQuantizer {
 public:
  Qsgd(const Config& c, const std::vector<Layer>& layers)
      : LayerwiseQuantizer(layers, "compress.qsgd"), levels_(static_cast<uint64_t>(c.levels)) {
    bits_ = bits_for(levels_ + 1) + 1;
  }

 protected:
  size_t layer_bytes(size_t n) const override { return 4 + packed_bytes(n, bits_); }

  void encode_layer(std::span<const float> v, const Layer& layer, ByteWriter& out, std::mt19937_64& rng) override {
    double sum_sq = 0;
    for (float x : v) sum_sq += static_cast<double>(x) * x;
    const float norm = checked_scale(std::sqrt(sum_sq), layer, "L2 norm");
    out.f32(norm);
    BitWriter codes(out.extend(packed_bytes(v.size(), bits_)));  // zero bytes: all codes 0 if norm is 0
    if (norm == 0) return;
    // Round against the fp32 norm the receiver sees, so the decode is unbiased exactly.
    const double s = static_cast<double>(levels_);
    for (float vi : v) {
      const double x = s * std::fabs(static_cast<double>(vi)) / norm;
      const uint64_t level = std::min(stochastic_round(x, rng), levels_);  // |v_i| <= norm, guard rounding
      codes.put((vi < 0 && level > 0 ? 1u : 0u) | (level << 1), bits_);    // no sign on 0: canonical bytes
    }
    codes.finish();
  }

  void decode_layer(ByteReader& in, const Sink& sink, size_t offset, size_t n) const override {
    const double norm = read_scale(in, false, true);
    BitReader codes = in.packed_reader(n, bits_);
    auto magnitude = [&](uint64_t level) {
      return static_cast<float>(norm * static_cast<double>(level) / static_cast<double>(levels_));
    };
    // With fewer levels than entries, each level's value once (fp32 rounding is symmetric, so
    // the negative value is the negated one).
    std::vector<float> table;
    if (levels_ < n) {
      table.resize(levels_ + 1);
      for (uint64_t l = 0; l <= levels_; ++l) table[l] = magnitude(l);
    }
    sink.fill(offset, n, [&](size_t) {
      const uint64_t code = codes.get(bits_), level = code >> 1;
      if (level > levels_)
        throw CompressError("compressed payload: qsgd level " + std::to_string(level) + " exceeds " +
                            std::to_string(levels_));
      const float m = table.empty() ? magnitude(level) : table[level];
      return (code & 1u) ? -m : m;
    });
  }

 private:
  uint64_t levels_;
  int bits_;
};

class TernGrad final : public LayerwiseQuantizer {
 public:
  explicit TernGrad(const std::vector<Layer>& layers) : LayerwiseQuantizer(layers, "compress.terngrad") {}

 protected:
  size_t layer_bytes(size_t n) const override { return 4 + packed_bytes(n, 2); }

  void encode_layer(std::span<const float> v, const Layer&, ByteWriter& out, std::mt19937_64& rng) override {
    float scale = 0;
    for (float x : v) scale = std::max(scale, std::fabs(x));
    out.f32(scale);
    BitWriter codes(out.extend(packed_bytes(v.size(), 2)));  // zero bytes: all codes 0 if scale is 0
    if (scale == 0) return;
    for (float vi : v) {
      // P(|t_i| = 1) = |v_i| / s_t, so E[s_t t_i] = v_i.
      const bool nonzero = uniform01(rng) < std::fabs(static_cast<double>(vi)) / scale;
      codes.put(nonzero ? (vi < 0 ? 2 : 1) : 0, 2);
    }
    codes.finish();
  }

  void decode_layer(ByteReader& in, const Sink& sink, size_t offset, size_t n) const override {
    const float scale = read_scale(in, false, true);
    const uint8_t* codes = in.take(packed_bytes(n, 2));
    sink.fill(offset, n, [&](size_t j) {
      switch ((codes[j / 4] >> (2 * (j % 4))) & 3u) {
        case 0: return 0.0f;
        case 1: return scale;
        case 2: return -scale;
        default: throw CompressError("compressed payload: terngrad code 3 is not a ternary value");
      }
    });
  }
};

// Packs bit i = (v_i >= 0), the sign bits signsgd and onebit send, a byte at a time.
void write_sign_bits(ByteWriter& out, std::span<const float> v) {
  uint8_t* bytes = out.extend(packed_bytes(v.size(), 1));
  for (size_t i = 0; i < v.size(); i += 8) {
    uint8_t byte = 0;
    for (size_t j = 0; j < 8 && i + j < v.size(); ++j) byte |= static_cast<uint8_t>((v[i + j] >= 0 ? 1u : 0u) << j);
    bytes[i / 8] = byte;
  }
}

// Decodes sign bits: `on` where the bit is 1, `off` where it is 0.
void read_sign_bits(ByteReader& in, const Compressor::Sink& sink, size_t offset, size_t n, float on, float off) {
  const uint8_t* bytes = in.take(packed_bytes(n, 1));
  const float value[2] = {off, on};  // indexed by the bit: random signs would defeat a branch
  sink.fill(offset, n, [&](size_t j) { return value[(bytes[j / 8] >> (j % 8)) & 1u]; });
}

class SignSgd final : public LayerwiseQuantizer {
 public:
  explicit SignSgd(const std::vector<Layer>& layers) : LayerwiseQuantizer(layers, "compress.signsgd") {}

 protected:
  size_t layer_bytes(size_t n) const override { return 4 + packed_bytes(n, 1); }

  void encode_layer(std::span<const float> v, const Layer& layer, ByteWriter& out, std::mt19937_64&) override {
    double l1 = 0;
    for (float x : v) l1 += std::fabs(static_cast<double>(x));
    // ||v||_1 / n minimises ||v - scale sign(v)||_2 over the scale.
    out.f32(v.empty() ? 0.0f : checked_scale(l1 / static_cast<double>(v.size()), layer, "mean |v|"));
    write_sign_bits(out, v);
  }

  void decode_layer(ByteReader& in, const Sink& sink, size_t offset, size_t n) const override {
    const float scale = read_scale(in, false, true);
    read_sign_bits(in, sink, offset, n, scale, -scale);
  }
};

class OneBit final : public LayerwiseQuantizer {
 public:
  explicit OneBit(const std::vector<Layer>& layers) : LayerwiseQuantizer(layers, "compress.onebit") {}

 protected:
  size_t layer_bytes(size_t n) const override { return 8 + packed_bytes(n, 1); }

  void encode_layer(std::span<const float> v, const Layer& layer, ByteWriter& out, std::mt19937_64&) override {
    double pos_sum = 0, neg_sum = 0;
    size_t pos_count = 0;
    // Each entry goes into both sums, masked to +0 in the sum of the other sign: adding +0 to a
    // sum of one sign leaves it as it is, so the sums are those of the entries of each sign, in
    // order, without a branch on random signs (which a compiler keeps for a ?: on doubles).
    for (float x : v) {
      const uint64_t bits = std::bit_cast<uint64_t>(static_cast<double>(x));
      const uint64_t negative = uint64_t{0} - static_cast<uint64_t>(x < 0);  // all ones or zero
      pos_sum += std::bit_cast<double>(bits & ~negative);
      neg_sum += std::bit_cast<double>(bits & negative);
      pos_count += x >= 0 ? 1 : 0;
    }
    const size_t neg_count = v.size() - pos_count;
    // The group means are the reconstruction values with the least squared error.
    out.f32(pos_count ? checked_scale(pos_sum / static_cast<double>(pos_count), layer, "mean of v >= 0") : 0.0f);
    out.f32(neg_count ? checked_scale(neg_sum / static_cast<double>(neg_count), layer, "mean of v < 0") : 0.0f);
    write_sign_bits(out, v);
  }

  void decode_layer(ByteReader& in, const Sink& sink, size_t offset, size_t n) const override {
    const float pos_mean = read_scale(in, false, true);
    const float neg_mean = read_scale(in, true, false);
    read_sign_bits(in, sink, offset, n, pos_mean, neg_mean);
  }
};

}  // namespace

std::unique_ptr<Compressor> make_qsgd(const Config& c, const std::vector<Layer>& layers) {
  if (c.levels < 1) throw ConfigError("levels", "must be >= 1, got " + std::to_string(c.levels));
  // Levels are computed in double and packed into at most 64 bits: keep them exact.
  constexpr int64_t max_levels = int64_t{1} << 31;
  if (c.levels > max_levels)
    throw ConfigError("levels", "must be <= " + std::to_string(max_levels) + ", got " + std::to_string(c.levels));
  return std::make_unique<Qsgd>(c, layers);
}

int64_t qsgd_bytes(const Config& c, const std::vector<Layer>& layers) {
  return static_cast<int64_t>(Qsgd(c, layers).payload_bytes());
}

std::unique_ptr<Compressor> make_terngrad(const Config&, const std::vector<Layer>& layers) {
  return std::make_unique<TernGrad>(layers);
}

int64_t terngrad_bytes(const Config&, const std::vector<Layer>& layers) {
  return static_cast<int64_t>(TernGrad(layers).payload_bytes());
}

std::unique_ptr<Compressor> make_signsgd(const Config&, const std::vector<Layer>& layers) {
  return std::make_unique<SignSgd>(layers);
}

int64_t signsgd_bytes(const Config&, const std::vector<Layer>& layers) {
  return static_cast<int64_t>(SignSgd(layers).payload_bytes());
}

std::unique_ptr<Compressor> make_onebit(const Config&, const std::vector<Layer>& layers) {
  return std::make_unique<OneBit>(layers);
}

int64_t onebit_bytes(const Config&, const std::vector<Layer>& layers) {
  return static_cast<int64_t>(OneBit(layers).payload_bytes());
}

}  // namespace edgetrain::compress
