// Gradient (and model-delta) compressors behind a LibTorch-free interface. A compressor turns
// one flat fp32 update, laid out in layers, into the exact bytes that travel on the simulated
// network, and back: the simulated message size is the payload's length, so nothing is
// estimated. Decoding needs only the payload, the same configuration and layer layout, and the
// shared Context (seeds that sender and receiver derive alike, e.g. random-k's indices).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/input_error.hpp"

namespace edgetrain::compress {

class CompressError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A setting the compressor cannot work with (a level count, a ratio, a model too large for its
// indices): an input error, shown as "compression.levels: must be ...". `section` is the
// scenario section the setting came from; the downlink rethrows with its own.
class ConfigError : public CompressError, public util::InputError {
 public:
  ConfigError(std::string setting, std::string detail, const std::string& section = "compression")
      : CompressError(section + "." + setting + ": " + detail),
        setting_(std::move(setting)),
        detail_(std::move(detail)) {}
  const std::string& setting() const { return setting_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string setting_, detail_;
};

struct Layer {
  std::string name;
  std::vector<int64_t> shape;
  int64_t offset = 0;  // in the flat vector
  int64_t numel = 0;
};

struct Config {
  // none | fp16 | topk | randomk | threshold | qsgd | terngrad | signsgd | onebit | powersgd |
  // adacomp | adacomp-bins
  std::string kind = "none";
  double ratio = 0.01;          // topk, randomk, adacomp: fraction of entries kept
  std::string scope = "layer";  // topk: per layer (k_l = max(1, floor(ratio n_l))) or global
  bool packed_indices = false;  // indices in ceil(log2 n) bits instead of 32
  double threshold = 0;         // threshold: send |g| > threshold
  int64_t levels = 16;          // qsgd: quantisation levels s
  int64_t rank = 2;             // powersgd: rank r
  int64_t bin_size = 50;        // adacomp-bins: L_T consecutive entries per bin
};

// What sender and receiver share without sending it.
struct Context {
  uint64_t seed = 0;  // per device (and direction)
  int64_t step = 0;   // the sender's step counter
};

struct Encoded {
  std::vector<uint8_t> payload;  // exactly the bytes on the wire (the message header is extra)
  // Sparse schemes (topk, randomk, threshold, adacomp, adacomp-bins): per layer, the flat
  // indices (into the whole vector) that were sent, in increasing order. Empty for dense
  // schemes. Staleness-aware servers consume these (AdaComp).
  std::vector<std::vector<int64_t>> indices;
};

class Compressor {
 public:
  virtual ~Compressor() = default;
  // Encodes one update. Stateful schemes (adacomp-bins' residual, powersgd's warm start) update
  // their sender-side state here.
  virtual Encoded encode(std::span<const float> update, const Context& context) = 0;
  // Decodes a payload of encode() with the same config and layers into a dense update.
  // Throws CompressError on a malformed payload (wrong length, bad values).
  virtual std::vector<float> decode(std::span<const uint8_t> payload, const Context& context) const = 0;
};

// Throws ConfigError naming the bad setting (unknown kind, ratio outside (0, 1], ...).
std::unique_ptr<Compressor> make_compressor(const Config& config, const std::vector<Layer>& layers);

// Error feedback (residual memory), one per sender: p = g + e; send C(p); e = p - D(C(p)).
class ErrorFeedback {
 public:
  explicit ErrorFeedback(size_t size) : residual_(size, 0.0f) {}
  std::vector<float> corrected(std::span<const float> update) const;                // p = g + e
  void remember(std::span<const float> corrected, std::span<const float> decoded);  // e = p - D(C(p))
  const std::vector<float>& residual() const { return residual_; }

 private:
  std::vector<float> residual_;
};

// ScaDLES's adaptive-compression criterion: | ||g|| - ||Top_k(g)|| | / ||g||, with Top_k taken
// per layer (k_l = max(1, floor(ratio n_l))) or globally; 0 for a zero vector.
double topk_norm_gap(std::span<const float> update, const std::vector<Layer>& layers, double ratio,
                     const std::string& scope);

}  // namespace edgetrain::compress
