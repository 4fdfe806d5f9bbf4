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
// topk_bytes, randomk_bytes and adacomp_bytes (at the end) give these lengths to timing-only runs
// (and the encoders their allocation); threshold's and adacomp-bins' depend on the data.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "compress/compressor.hpp"
#include "compress/family.hpp"
#include "compress/select.hpp"
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
  if (all_finite(update)) return;  // the position only on failure
  for (size_t i = 0; i < update.size(); ++i) {
    if (!std::isfinite(update[i]))
      throw CompressError("compress: update entry " + std::to_string(i) + " is not finite");
  }
}

}  // namespace detail

bool all_finite(std::span<const float> x) {
  // An all-ones exponent (inf, NaN) plus one carries into bit 31; others stay below it. And, add
  // and or only: the loop vectorises on every x86-64.
  uint32_t any = 0;
  for (float v : x) any |= (std::bit_cast<uint32_t>(v) & 0x7f800000u) + 0x00800000u;
  return (any & 0x80000000u) == 0;
}

namespace {

using detail::keep_count;

// Values of x at the (local) positions, then the positions themselves.
void write_entries(ByteWriter& w, std::span<const float> x, std::span<const int64_t> positions, int64_t n,
                   bool packed) {
  uint8_t* values = w.extend(4 * positions.size());
  for (size_t j = 0; j < positions.size(); ++j) store_f32(values + 4 * j, x[static_cast<size_t>(positions[j])]);
  if (packed) {
    const int bits = bits_for(static_cast<uint64_t>(n));
    BitWriter bw(w.extend(packed_bytes(positions.size(), bits)));
    for (int64_t i : positions) bw.put(static_cast<uint64_t>(i), bits);
    bw.finish();
  } else {
    uint8_t* out = w.extend(4 * positions.size());
    for (size_t j = 0; j < positions.size(); ++j) store_u32(out + 4 * j, static_cast<uint32_t>(positions[j]));
  }
}

// Bytes write_entries() appends for `count` entries of a block of n.
size_t entries_bytes(int64_t count, int64_t n, bool packed) {
  const auto c = static_cast<size_t>(count);
  return 4 * c + (packed ? packed_bytes(c, bits_for(static_cast<uint64_t>(n))) : 4 * c);
}

// Reads `count` values and their positions in a block of n entries starting at `offset` of the
// sink's vector, and puts them there. Positions must be below n and strictly increasing (as
// every encoder writes them), which also rules out duplicates.
void read_entries(ByteReader& r, const Compressor::Sink& sink, int64_t offset, int64_t n, size_t count, bool packed) {
  const uint8_t* values = r.take(4 * count);
  const int bits = bits_for(static_cast<uint64_t>(n));
  BitReader packed_positions = packed ? r.packed_reader(count, bits) : BitReader(nullptr, 0);
  const uint8_t* positions = packed ? nullptr : r.take(4 * count);
  int64_t previous = -1;
  for (size_t j = 0; j < count; ++j) {
    const uint64_t raw = packed ? packed_positions.get(bits) : load_u32(positions + 4 * j);
    if (raw >= static_cast<uint64_t>(n)) {
      throw CompressError("compressed payload: index " + std::to_string(raw) + " out of range (" + std::to_string(n) +
                          " entries)");
    }
    const auto position = static_cast<int64_t>(raw);
    if (position <= previous) {
      throw CompressError("compressed payload: indices not strictly increasing at " + std::to_string(position));
    }
    previous = position;
    sink.put(static_cast<size_t>(offset + position), load_f32(values + 4 * j));
  }
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

std::vector<int64_t> shifted(std::span<const int64_t> positions, int64_t offset) {
  std::vector<int64_t> out(positions.begin(), positions.end());
  for (int64_t& i : out) i += offset;
  return out;
}

// Encoder scratch, per thread rather than per compressor: a fleet holds thousands of
// compressors (one per device), and a thread encodes for one device at a time.
struct EncoderScratch {
  detail::TopKSelector selector;
  std::vector<int64_t> sent;  // the positions sent in the current layer (top-k)
  // Schemes that send a data-dependent set write each layer's candidate positions at the
  // layer's offset in `slots`, advancing past the kept ones only (no branch depends on the
  // data), and the layer's count into `counts`.
  std::vector<int64_t> slots;
  std::vector<size_t> counts;

  // Slots for n entries and zero counts for `layers` layers.
  int64_t* prepare(int64_t n, size_t layers) {
    if (static_cast<int64_t>(slots.size()) < n) slots.resize(static_cast<size_t>(n));
    counts.assign(layers, 0);
    return slots.data();
  }
};

EncoderScratch& scratch() {
  thread_local EncoderScratch s;
  return s;
}

// State every sparse scheme shares: the configuration and the layout.
class Sparse : public Compressor {
 public:
  Sparse(const Config& config, const std::vector<Layer>& layers)
      : Compressor(detail::layout_size(layers)), config_(config), layers_(layers) {}

 protected:
  bool sparse() const override { return true; }

  std::span<const float> layer_of(std::span<const float> x, const Layer& l) const {
    return x.subspan(static_cast<size_t>(l.offset), static_cast<size_t>(l.numel));
  }

  // The threshold and adacomp-bins format: per layer, u32 count, values, positions.
  void decode_counted(std::span<const uint8_t> payload, const Sink& sink) const {
    ByteReader r(payload);
    for (const Layer& l : layers_) {
      const size_t count = read_count(r, l.numel);
      read_entries(r, sink, l.offset, l.numel, count, config_.packed_indices);
    }
    r.expect_end();
  }

  // The counted format from the scratch's slots and counts (values taken from x), allocated once.
  void write_counted(ByteWriter& w, Encoded& e, std::span<const float> x) const {
    const EncoderScratch& s = scratch();
    size_t bytes = 0;
    for (size_t li = 0; li < layers_.size(); ++li) {
      bytes += 4 + entries_bytes(static_cast<int64_t>(s.counts[li]), layers_[li].numel, config_.packed_indices);
    }
    e.payload.reserve(bytes);
    for (size_t li = 0; li < layers_.size(); ++li) {
      const Layer& l = layers_[li];
      const std::span<const int64_t> sent(s.slots.data() + l.offset, s.counts[li]);
      w.u32(static_cast<uint32_t>(sent.size()));
      write_entries(w, layer_of(x, l), sent, l.numel, config_.packed_indices);
      e.indices.push_back(shifted(sent, l.offset));
    }
  }

  Config config_;
  std::vector<Layer> layers_;
};

// topk and adacomp (which is topk with layer scope).
class TopK final : public Sparse {
 public:
  TopK(const Config& config, const std::vector<Layer>& layers) : Sparse(config, layers) {
    detail::check_ratio(config.ratio);
    detail::check_scope(config.scope);
    if (config.scope == "global" && !config.packed_indices && size() > int64_t{std::numeric_limits<uint32_t>::max()}) {
      throw ConfigError("scope", "global indices over " + std::to_string(size()) +
                                     " entries do not fit 32 bits (use packed indices)");
    }
  }

  Encoded encode(std::span<const float> update, const Context&) override {
    detail::check_update_size(update.size(), size());
    Encoded e;
    ByteWriter w(e.payload);
    EncoderScratch& s = scratch();
    e.payload.reserve(static_cast<size_t>(topk_bytes(config_, layers_)));
    if (config_.scope == "layer") {
      for (const Layer& l : layers_) {
        const std::span<const float> x = layer_of(update, l);
        s.selector.select(x, keep_count(config_.ratio, l.numel), s.sent);
        write_entries(w, x, s.sent, l.numel, config_.packed_indices);
        e.indices.push_back(shifted(s.sent, l.offset));
      }
    } else {
      s.selector.select(update, keep_count(config_.ratio, size()), s.sent);
      write_entries(w, update, s.sent, size(), config_.packed_indices);
      // Split the increasing global positions by layer.
      auto it = s.sent.begin();
      for (const Layer& l : layers_) {
        auto end = std::lower_bound(it, s.sent.end(), l.offset + l.numel);
        e.indices.emplace_back(it, end);
        it = end;
      }
    }
    return e;
  }

 protected:
  void decode_to(std::span<const uint8_t> payload, const Context&, const Sink& sink) const override {
    ByteReader r(payload);
    if (config_.scope == "layer") {
      for (const Layer& l : layers_) {
        read_entries(r, sink, l.offset, l.numel, static_cast<size_t>(keep_count(config_.ratio, l.numel)),
                     config_.packed_indices);
      }
    } else {
      read_entries(r, sink, 0, size(), static_cast<size_t>(keep_count(config_.ratio, size())), config_.packed_indices);
    }
    r.expect_end();
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
    detail::check_update_size(update.size(), size());
    Encoded e;
    e.payload.reserve(static_cast<size_t>(randomk_bytes(config_, layers_)));
    ByteWriter w(e.payload);
    for (size_t li = 0; li < layers_.size(); ++li) {
      const Layer& l = layers_[li];
      const std::vector<int64_t> sent = positions(context, li);
      uint8_t* values = w.extend(4 * sent.size());
      for (size_t j = 0; j < sent.size(); ++j)
        store_f32(values + 4 * j, update[static_cast<size_t>(l.offset + sent[j])]);
      e.indices.push_back(shifted(sent, l.offset));
    }
    return e;
  }

 protected:
  void decode_to(std::span<const uint8_t> payload, const Context& context, const Sink& sink) const override {
    ByteReader r(payload);
    for (size_t li = 0; li < layers_.size(); ++li) {
      for (int64_t i : positions(context, li)) sink.put(static_cast<size_t>(layers_[li].offset + i), r.f32());
    }
    r.expect_end();
  }

 private:
  // k_l positions of layer li, uniform without replacement (Floyd's algorithm), increasing. The
  // generator depends only on (seed, step, layer), so the receiver draws the same set.
  std::vector<int64_t> positions(const Context& context, size_t li) const {
    const int64_t n = layers_[li].numel;
    const int64_t k = keep_count(config_.ratio, n);
    std::mt19937_64 rng(
        util::derive_seed(util::derive_seed(context.seed, "compress.randomk.step", static_cast<uint64_t>(context.step)),
                          "compress.randomk.layer", li));
    std::vector<bool> taken(static_cast<size_t>(n), false);
    std::vector<int64_t> out;
    out.reserve(static_cast<size_t>(k));
    for (int64_t j = n - k; j < n; ++j) {
      const auto t = static_cast<int64_t>(uniform_below(rng, static_cast<uint64_t>(j) + 1));
      const int64_t pick = taken[static_cast<size_t>(t)] ? j : t;
      taken[static_cast<size_t>(pick)] = true;
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
    detail::check_update_size(update.size(), size());
    Encoded e;
    ByteWriter w(e.payload);
    // Every layer's positions first (in its part of the slots), so the payload is allocated once.
    EncoderScratch& s = scratch();
    int64_t* slots = s.prepare(size(), layers_.size());
    for (size_t li = 0; li < layers_.size(); ++li) {
      const Layer& l = layers_[li];
      const std::span<const float> x = layer_of(update, l);
      int64_t* layer_slots = slots + l.offset;
      size_t count = 0;
      for (int64_t i = 0; i < l.numel; ++i) {
        layer_slots[count] = i;
        count += std::fabs(x[static_cast<size_t>(i)]) > config_.threshold ? 1 : 0;
      }
      s.counts[li] = count;
    }
    write_counted(w, e, update);
    return e;
  }

 protected:
  void decode_to(std::span<const uint8_t> payload, const Context&, const Sink& sink) const override {
    decode_counted(payload, sink);
  }
};

// Chen et al. 2018 (AdaComp): G = r + g, H = G + g; in each bin of bin_size consecutive entries
// of a layer, send G_i where |H_i| >= max_bin |G_j|; the residual keeps the rest of G. Entries
// with G_i = 0 are not sent even when the rule admits them (an all-zero bin admits every entry):
// they would change neither the receiver's sum nor the residual, only cost 8 bytes each.
class AdaCompBins final : public Sparse {
 public:
  AdaCompBins(const Config& config, const std::vector<Layer>& layers)
      : Sparse(config, layers), residual_(static_cast<size_t>(size()), 0.0f) {
    if (config.bin_size < 1) {
      throw ConfigError("bin_size", "must be >= 1, got " + std::to_string(config.bin_size));
    }
  }

  Encoded encode(std::span<const float> update, const Context&) override {
    detail::check_update_size(update.size(), size());
    // G = r + g in place: the residual becomes G, minus what is sent (zeroed below).
    for (size_t i = 0; i < residual_.size(); ++i) residual_[i] += update[i];
    Encoded e;
    ByteWriter w(e.payload);
    EncoderScratch& s = scratch();
    int64_t* slots = s.prepare(size(), layers_.size());
    for (size_t li = 0; li < layers_.size(); ++li) {
      const Layer& l = layers_[li];
      const std::span<const float> gl = layer_of(residual_, l), ul = layer_of(update, l);
      int64_t* layer_slots = slots + l.offset;
      size_t count = 0;
      for (int64_t start = 0; start < l.numel; start += config_.bin_size) {
        const int64_t end = std::min(l.numel, start + config_.bin_size);
        float bin_max = 0;
        for (int64_t i = start; i < end; ++i) bin_max = std::max(bin_max, std::fabs(gl[static_cast<size_t>(i)]));
        for (int64_t i = start; i < end; ++i) {
          const auto u = static_cast<size_t>(i);
          layer_slots[count] = i;
          count += (gl[u] != 0) & (std::fabs(gl[u] + ul[u]) >= bin_max);  // |H_i| = |G_i + g_i|
        }
      }
      s.counts[li] = count;
    }
    write_counted(w, e, residual_);
    for (const std::vector<int64_t>& layer : e.indices) {
      for (int64_t i : layer) residual_[static_cast<size_t>(i)] = 0;
    }
    return e;
  }

 protected:
  void decode_to(std::span<const uint8_t> payload, const Context&, const Sink& sink) const override {
    decode_counted(payload, sink);
  }

 private:
  std::vector<float> residual_;  // sender side: what has not been sent yet
};

// adacomp's settings: topk's with scope layer, whatever scope says.
Config layer_scope(const Config& c) {
  Config layer = c;
  layer.scope = "layer";
  return layer;
}

}  // namespace

std::unique_ptr<Compressor> make_topk(const Config& c, const std::vector<Layer>& layers) {
  return std::make_unique<TopK>(c, layers);
}

int64_t topk_bytes(const Config& c, const std::vector<Layer>& layers) {
  if (c.scope == "layer") {
    size_t bytes = 0;
    for (const Layer& l : layers) bytes += entries_bytes(keep_count(c.ratio, l.numel), l.numel, c.packed_indices);
    return static_cast<int64_t>(bytes);
  }
  const int64_t n = detail::layout_size(layers);
  return static_cast<int64_t>(entries_bytes(keep_count(c.ratio, n), n, c.packed_indices));
}

std::unique_ptr<Compressor> make_randomk(const Config& c, const std::vector<Layer>& layers) {
  return std::make_unique<RandomK>(c, layers);
}

int64_t randomk_bytes(const Config& c, const std::vector<Layer>& layers) {
  int64_t bytes = 0;
  for (const Layer& l : layers) bytes += 4 * keep_count(c.ratio, l.numel);
  return bytes;
}

std::unique_ptr<Compressor> make_threshold(const Config& c, const std::vector<Layer>& layers) {
  return std::make_unique<Threshold>(c, layers);
}

// Hardy et al. 2017: the per-layer top-k selection and wire format of topk (scope is ignored:
// always per layer); the asynchronous server's staleness rule consumes Encoded::indices.
std::unique_ptr<Compressor> make_adacomp(const Config& c, const std::vector<Layer>& layers) {
  return std::make_unique<TopK>(layer_scope(c), layers);
}

int64_t adacomp_bytes(const Config& c, const std::vector<Layer>& layers) { return topk_bytes(layer_scope(c), layers); }

std::unique_ptr<Compressor> make_adacomp_bins(const Config& c, const std::vector<Layer>& layers) {
  return std::make_unique<AdaCompBins>(c, layers);
}

}  // namespace edgetrain::compress
