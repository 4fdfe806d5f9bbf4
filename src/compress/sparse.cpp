// Sparsifying compressors: each sends a subset of the entries (value + position) and the receiver
// rebuilds a dense vector with zeros elsewhere. topk keeps the largest magnitudes, randomk a
// seeded random subset whose positions both sides derive, threshold everything above a fixed
// magnitude, adacomp (Hardy et al. 2017) per-layer top-k for the staleness-aware server, and
// adacomp-bins (Chen et al. 2018) a per-bin rule with its own residual. Also home of the layout
// and keep-count rules the other compress files share (declared in namespace detail).
//
// Wire formats (little endian; "indices" are positions within the layer, written as u32 each or,
// with packed_indices, bits_for(n_l) = max(1, ceil(log2 n_l)) bits each, packed LSB first and
// padded to a whole byte per layer; k_l = max(1, floor(ratio n_l)), capped at n_l):
//   topk, layer scope: per layer   k_l f32 values, then k_l indices (increasing)
//   topk, global scope: one block  k = max(1, floor(ratio N)) f32 values, then k indices over the
//                                  whole vector (bits_for(N) bits when packed)
//   randomk:           per layer   k_l f32 values (positions from the shared seed, not sent)
//   threshold:         per layer   u32 count c_l, c_l f32 values, c_l indices
//   adacomp:           as topk with layer scope
//   adacomp-bins:      per layer   u32 count c_l, c_l f32 values, c_l indices
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "compress/compressor.hpp"
#include "compress/kinds.hpp"
#include "compress/wire.hpp"
#include "util/format.hpp"
#include "util/seed.hpp"

namespace edgetrain::compress {

namespace detail {

// Total length of the flat vector; the layers must tile it in order, as learn::Model lays
// parameters out, so that every entry belongs to exactly one layer.
int64_t layout_size(const std::vector<Layer>& layers) {
  int64_t end = 0;
  for (const Layer& l : layers) {
    if (l.offset != end || l.numel < 0) {
      throw CompressError("compress: layer \"" + l.name + "\" (offset " + std::to_string(l.offset) + ", numel " +
                          std::to_string(l.numel) + ") does not follow the previous layer, which ends at " +
                          std::to_string(end));
    }
    if (l.numel > int64_t{std::numeric_limits<uint32_t>::max()}) {
      throw ConfigError("kind", "layer \"" + l.name + "\" has " + std::to_string(l.numel) +
                                    " entries, more than the 32-bit counts of the wire format address");
    }
    end += l.numel;
  }
  return end;
}

void check_update_size(size_t size, int64_t expected) {
  if (static_cast<int64_t>(size) != expected) {
    throw CompressError("compress: the update has " + std::to_string(size) + " entries, the layers hold " +
                        std::to_string(expected));
  }
}

void check_ratio(double ratio) {
  if (!(ratio > 0 && ratio <= 1)) {
    throw ConfigError("ratio", "must be in (0, 1], got " + util::format_number(ratio));
  }
}

void check_scope(const std::string& scope) {
  if (scope != "layer" && scope != "global") {
    throw ConfigError("scope", "must be \"layer\" or \"global\", got \"" + scope + "\"");
  }
}

// k = max(1, floor(ratio n)), capped at n (0 for an empty layer). The product gets a 1e-12
// relative allowance: in doubles 0.29 x 100 = 28.999999999999996, which must keep 29.
int64_t keep_count(double ratio, int64_t n) {
  if (n <= 0) return 0;
  const auto k = static_cast<int64_t>(std::floor(ratio * static_cast<double>(n) * (1 + 1e-12)));
  return std::clamp<int64_t>(k, 1, n);
}

void check_finite(std::span<const float> update) {
  for (size_t i = 0; i < update.size(); ++i) {
    if (!std::isfinite(update[i]))
      throw CompressError("compress: update entry " + std::to_string(i) + " is not finite");
  }
}

}  // namespace detail

namespace {

using detail::keep_count;

// Positions (into x) of the k largest |x_i|, increasing; ties go to the lower position, so the
// choice is deterministic. NaN counts as the largest magnitude (it is sent, not hidden).
std::vector<int64_t> top_k(std::span<const float> x, int64_t k) {
  std::vector<int64_t> idx(x.size());
  std::iota(idx.begin(), idx.end(), int64_t{0});
  if (k < static_cast<int64_t>(x.size())) {
    auto magnitude = [&](int64_t i) {
      const float a = std::fabs(x[i]);
      return std::isnan(a) ? std::numeric_limits<float>::infinity() : a;
    };
    auto before = [&](int64_t a, int64_t b) {
      const float ma = magnitude(a), mb = magnitude(b);
      return ma > mb || (ma == mb && a < b);
    };
    std::nth_element(idx.begin(), idx.begin() + k, idx.end(), before);
    idx.resize(k);
    std::sort(idx.begin(), idx.end());
  }
  return idx;
}

// Values of x at the (local) positions, then the positions themselves.
void write_entries(ByteWriter& w, std::span<const float> x, const std::vector<int64_t>& positions, int64_t n,
                   bool packed) {
  for (int64_t i : positions) w.f32(x[i]);
  if (packed) {
    const std::vector<uint64_t> p(positions.begin(), positions.end());
    w.packed(p, bits_for(static_cast<uint64_t>(n)));
  } else {
    for (int64_t i : positions) w.u32(static_cast<uint32_t>(i));
  }
}

// Reads `count` positions below n; they must be strictly increasing (as every encoder writes
// them), which also rules out duplicates.
std::vector<int64_t> read_positions(ByteReader& r, size_t count, int64_t n, bool packed) {
  std::vector<int64_t> positions(count);
  if (packed) {
    const std::vector<uint64_t> p = r.packed(count, bits_for(static_cast<uint64_t>(n)));
    std::copy(p.begin(), p.end(), positions.begin());
  } else {
    for (size_t i = 0; i < count; ++i) positions[i] = r.u32();
  }
  for (size_t i = 0; i < count; ++i) {
    if (positions[i] >= n) {
      throw CompressError("compressed payload: index " + std::to_string(positions[i]) + " out of range (" +
                          std::to_string(n) + " entries)");
    }
    if (i > 0 && positions[i] <= positions[i - 1]) {
      throw CompressError("compressed payload: indices not strictly increasing at " + std::to_string(positions[i]));
    }
  }
  return positions;
}

// Reads `count` values and their positions, and puts them into out (a block of n entries).
void read_entries(ByteReader& r, std::span<float> out, size_t count, bool packed) {
  std::vector<float> values(count);
  for (float& v : values) v = r.f32();
  const std::vector<int64_t> positions = read_positions(r, count, static_cast<int64_t>(out.size()), packed);
  for (size_t i = 0; i < count; ++i) out[positions[i]] = values[i];
}

// A count field read from the payload: at most the layer's size (checked before allocating).
size_t read_count(ByteReader& r, int64_t n) {
  const uint32_t c = r.u32();
  if (int64_t{c} > n) {
    throw CompressError("compressed payload: count " + std::to_string(c) + " exceeds the layer's " + std::to_string(n) +
                        " entries");
  }
  return c;
}

std::vector<int64_t> shifted(const std::vector<int64_t>& positions, int64_t offset) {
  std::vector<int64_t> out(positions);
  for (int64_t& i : out) i += offset;
  return out;
}

// State every sparse scheme shares: the configuration and the layout.
class Sparse : public Compressor {
 public:
  Sparse(const Config& config, const std::vector<Layer>& layers)
      : config_(config), layers_(layers), size_(detail::layout_size(layers)) {}

 protected:
  std::span<const float> layer_of(std::span<const float> x, const Layer& l) const {
    return x.subspan(l.offset, l.numel);
  }
  std::span<float> layer_out(std::span<float> x, const Layer& l) const { return x.subspan(l.offset, l.numel); }

  // The threshold and adacomp-bins format: per layer, u32 count, values, positions.
  std::vector<float> decode_counted(std::span<const uint8_t> payload) const {
    std::vector<float> out(size_, 0.0f);
    ByteReader r(payload);
    for (const Layer& l : layers_) {
      const size_t count = read_count(r, l.numel);
      read_entries(r, layer_out(out, l), count, config_.packed_indices);
    }
    r.expect_end();
    return out;
  }

  Config config_;
  std::vector<Layer> layers_;
  int64_t size_;
};

// topk and adacomp (which is topk with layer scope).
class TopK final : public Sparse {
 public:
  TopK(const Config& config, const std::vector<Layer>& layers) : Sparse(config, layers) {
    detail::check_ratio(config.ratio);
    detail::check_scope(config.scope);
    if (config.scope == "global" && !config.packed_indices && size_ > int64_t{std::numeric_limits<uint32_t>::max()}) {
      throw ConfigError(
          "scope", "global indices over " + std::to_string(size_) + " entries do not fit 32 bits (use packed indices)");
    }
  }

  Encoded encode(std::span<const float> update, const Context&) override {
    detail::check_update_size(update.size(), size_);
    Encoded e;
    ByteWriter w(e.payload);
    if (config_.scope == "layer") {
      for (const Layer& l : layers_) {
        const std::span<const float> x = layer_of(update, l);
        const std::vector<int64_t> sent = top_k(x, keep_count(config_.ratio, l.numel));
        write_entries(w, x, sent, l.numel, config_.packed_indices);
        e.indices.push_back(shifted(sent, l.offset));
      }
    } else {
      const std::vector<int64_t> sent = top_k(update, keep_count(config_.ratio, size_));
      write_entries(w, update, sent, size_, config_.packed_indices);
      // Split the increasing global positions by layer.
      auto it = sent.begin();
      for (const Layer& l : layers_) {
        auto end = std::lower_bound(it, sent.end(), l.offset + l.numel);
        e.indices.emplace_back(it, end);
        it = end;
      }
    }
    return e;
  }

  std::vector<float> decode(std::span<const uint8_t> payload, const Context&) const override {
    std::vector<float> out(size_, 0.0f);
    ByteReader r(payload);
    if (config_.scope == "layer") {
      for (const Layer& l : layers_) {
        read_entries(r, layer_out(out, l), keep_count(config_.ratio, l.numel), config_.packed_indices);
      }
    } else {
      read_entries(r, out, keep_count(config_.ratio, size_), config_.packed_indices);
    }
    r.expect_end();
    return out;
  }
};

// Uniform integer in [0, bound) from the generator's raw output by rejection, so the draw is the
// same on every standard library (std::uniform_int_distribution is implementation-defined).
uint64_t uniform_below(std::mt19937_64& rng, uint64_t bound) {
  const uint64_t reject_below = (0 - bound) % bound;  // 2^64 mod bound
  for (;;) {
    const uint64_t x = rng();
    if (x >= reject_below) return x % bound;
  }
}

// randomk sends the raw values, without the n/k scaling that would make it unbiased: the scaled
// variant inflates the variance of the update by n/k, and error feedback (the caller's choice)
// is the usual remedy for the bias instead.
class RandomK final : public Sparse {
 public:
  RandomK(const Config& config, const std::vector<Layer>& layers) : Sparse(config, layers) {
    detail::check_ratio(config.ratio);
  }

  Encoded encode(std::span<const float> update, const Context& context) override {
    detail::check_update_size(update.size(), size_);
    Encoded e;
    ByteWriter w(e.payload);
    for (size_t li = 0; li < layers_.size(); ++li) {
      const Layer& l = layers_[li];
      const std::vector<int64_t> sent = positions(context, li);
      for (int64_t i : sent) w.f32(update[l.offset + i]);
      e.indices.push_back(shifted(sent, l.offset));
    }
    return e;
  }

  std::vector<float> decode(std::span<const uint8_t> payload, const Context& context) const override {
    std::vector<float> out(size_, 0.0f);
    ByteReader r(payload);
    for (size_t li = 0; li < layers_.size(); ++li) {
      for (int64_t i : positions(context, li)) out[layers_[li].offset + i] = r.f32();
    }
    r.expect_end();
    return out;
  }

  // k_l positions of layer li, uniform without replacement (Floyd's algorithm), increasing. The
  // generator depends only on (seed, step, layer), so the receiver draws the same set.
  std::vector<int64_t> positions(const Context& context, size_t li) const {
    const int64_t n = layers_[li].numel;
    const int64_t k = keep_count(config_.ratio, n);
    std::mt19937_64 rng(
        util::derive_seed(util::derive_seed(context.seed, "compress.randomk.step", static_cast<uint64_t>(context.step)),
                          "compress.randomk.layer", li));
    std::vector<bool> taken(n, false);
    std::vector<int64_t> out;
    out.reserve(k);
    for (int64_t j = n - k; j < n; ++j) {
      const auto t = static_cast<int64_t>(uniform_below(rng, static_cast<uint64_t>(j) + 1));
      const int64_t pick = taken[t] ? j : t;
      taken[pick] = true;
      out.push_back(pick);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

// Sends |v| > threshold (strictly: a threshold of 0 sends exactly the nonzero entries).
class Threshold final : public Sparse {
 public:
  Threshold(const Config& config, const std::vector<Layer>& layers) : Sparse(config, layers) {
    if (!(config.threshold >= 0)) {
      throw ConfigError("threshold", "must be >= 0, got " + util::format_number(config.threshold));
    }
  }

  Encoded encode(std::span<const float> update, const Context&) override {
    detail::check_update_size(update.size(), size_);
    Encoded e;
    ByteWriter w(e.payload);
    for (const Layer& l : layers_) {
      const std::span<const float> x = layer_of(update, l);
      std::vector<int64_t> sent;
      for (int64_t i = 0; i < l.numel; ++i) {
        if (std::fabs(x[i]) > config_.threshold) sent.push_back(i);
      }
      w.u32(static_cast<uint32_t>(sent.size()));
      write_entries(w, x, sent, l.numel, config_.packed_indices);
      e.indices.push_back(shifted(sent, l.offset));
    }
    return e;
  }

  std::vector<float> decode(std::span<const uint8_t> payload, const Context&) const override {
    return decode_counted(payload);
  }
};

// Chen et al. 2018 (AdaComp): G = r + g, H = G + g; in each bin of bin_size consecutive entries
// of a layer, send G_i where |H_i| >= max_bin |G_j|; the residual keeps the rest of G. Entries
// with G_i = 0 are not sent even when the rule admits them (an all-zero bin admits every entry):
// they would change neither the receiver's sum nor the residual, only cost 8 bytes each.
class AdaCompBins final : public Sparse {
 public:
  AdaCompBins(const Config& config, const std::vector<Layer>& layers) : Sparse(config, layers), residual_(size_, 0.0f) {
    if (config.bin_size < 1) {
      throw ConfigError("bin_size", "must be >= 1, got " + std::to_string(config.bin_size));
    }
  }

  Encoded encode(std::span<const float> update, const Context&) override {
    detail::check_update_size(update.size(), size_);
    // G = r + g in place: the residual becomes G, minus what is sent (zeroed below).
    for (int64_t i = 0; i < size_; ++i) residual_[i] += update[i];
    Encoded e;
    ByteWriter w(e.payload);
    for (const Layer& l : layers_) {
      const std::span<const float> gl = layer_of(residual_, l), ul = layer_of(update, l);
      std::vector<int64_t> sent;
      for (int64_t start = 0; start < l.numel; start += config_.bin_size) {
        const int64_t end = std::min(l.numel, start + config_.bin_size);
        float bin_max = 0;
        for (int64_t i = start; i < end; ++i) bin_max = std::max(bin_max, std::fabs(gl[i]));
        for (int64_t i = start; i < end; ++i) {
          if (gl[i] != 0 && std::fabs(gl[i] + ul[i]) >= bin_max) sent.push_back(i);  // |H_i| = |G_i + g_i|
        }
      }
      w.u32(static_cast<uint32_t>(sent.size()));
      write_entries(w, gl, sent, l.numel, config_.packed_indices);
      e.indices.push_back(shifted(sent, l.offset));
    }
    for (const std::vector<int64_t>& layer : e.indices) {
      for (int64_t i : layer) residual_[i] = 0;
    }
    return e;
  }

  std::vector<float> decode(std::span<const uint8_t> payload, const Context&) const override {
    return decode_counted(payload);
  }

 private:
  std::vector<float> residual_;  // sender side: what has not been sent yet
};

}  // namespace

std::unique_ptr<Compressor> make_topk(const Config& c, const std::vector<Layer>& layers) {
  return std::make_unique<TopK>(c, layers);
}

std::unique_ptr<Compressor> make_randomk(const Config& c, const std::vector<Layer>& layers) {
  return std::make_unique<RandomK>(c, layers);
}

std::unique_ptr<Compressor> make_threshold(const Config& c, const std::vector<Layer>& layers) {
  return std::make_unique<Threshold>(c, layers);
}

// Hardy et al. 2017: the per-layer top-k selection and wire format of topk (scope is ignored:
// always per layer); the asynchronous server's staleness rule consumes Encoded::indices.
std::unique_ptr<Compressor> make_adacomp(const Config& c, const std::vector<Layer>& layers) {
  Config layer_scope = c;
  layer_scope.scope = "layer";
  return std::make_unique<TopK>(layer_scope, layers);
}

std::unique_ptr<Compressor> make_adacomp_bins(const Config& c, const std::vector<Layer>& layers) {
  return std::make_unique<AdaCompBins>(c, layers);
}

}  // namespace edgetrain::compress
