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

#include "compress/config.hpp"
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
  // their sender-side state here: one sender per compressor. Scratch buffers are per thread.
  virtual Encoded encode(std::span<const float> update, const Context& context) = 0;
  // Decodes a payload of encode() with the same config and layers into a dense update.
  // Throws CompressError on a malformed payload (wrong length, bad values). Decoding keeps no
  // state: several threads may decode with one compressor at once.
  std::vector<float> decode(std::span<const uint8_t> payload, const Context& context) const;
  // The same into `out` (the layout's size), every entry overwritten: no allocation.
  void decode_into(std::span<const uint8_t> payload, const Context& context, std::span<float> out) const;
  // target -= decode(payload), bit for bit that subtraction, without building the decoded
  // vector: entries the payload does not carry (decoded as +0) are left as they are, which is
  // what subtracting +0 gives. On a malformed payload target is partly updated, then it throws.
  void subtract_decoded(std::span<const uint8_t> payload, const Context& context, std::span<float> target) const;
  int64_t size() const { return size_; }

  // For the implementations: how a decoder puts value v of entry i into its output, out[i] = v
  // or out[i] -= v.
  struct Sink {
    std::span<float> out;
    bool subtract;
    void put(size_t i, float v) const {
      if (subtract) {
        out[i] -= v;
      } else {
        out[i] = v;
      }
    }
    // Puts value(j) into entry offset + j for j < n, one loop per mode.
    template <typename F>
    void fill(size_t offset, size_t n, F&& value) const {
      float* o = out.data() + offset;
      if (subtract) {
        for (size_t j = 0; j < n; ++j) o[j] -= value(j);
      } else {
        for (size_t j = 0; j < n; ++j) o[j] = value(j);
      }
    }
  };

 protected:
  explicit Compressor(int64_t size) : size_(size) {}
  // Decodes into sink.out. Sparse schemes put only the entries they carry: for an assignment
  // the caller has zeroed the rest (sparse() says which schemes those are).
  virtual void decode_to(std::span<const uint8_t> payload, const Context& context, const Sink& sink) const = 0;
  virtual bool sparse() const { return false; }

 private:
  int64_t size_;
};

// Throws ConfigError naming the bad setting (unknown kind, ratio outside (0, 1], ...).
std::unique_ptr<Compressor> make_compressor(const Config& config, const std::vector<Layer>& layers);

// Error feedback (residual memory), one per sender: p = g + e; send C(p); e = p - D(C(p)).
// p is computed in the memory itself, so a step allocates nothing:
//   std::span<const float> p = feedback.correct(g);
//   Encoded e = compressor.encode(p, context);
//   feedback.remember(compressor, e.payload, context);
class ErrorFeedback {
 public:
  explicit ErrorFeedback(size_t size) : residual_(size, 0.0f) {}
  // p = g + e; the span holds p until remember() (or the next correct()).
  std::span<const float> correct(std::span<const float> update);
  // e = p - D(C(p)), `payload` being the compressor's encoding of the p correct() returned.
  void remember(const Compressor& compressor, std::span<const uint8_t> payload, const Context& context);
  const std::vector<float>& residual() const { return residual_; }

 private:
  std::vector<float> residual_;
};

// Whether every entry is finite (no NaN, no infinity), without a branch per entry.
bool all_finite(std::span<const float> x);

// ScaDLES's adaptive-compression criterion: | ||g|| - ||Top_k(g)|| | / ||g||, with Top_k taken
// per layer (k_l = max(1, floor(ratio n_l))) or globally; 0 for a zero vector.
double topk_norm_gap(std::span<const float> update, const std::vector<Layer>& layers, double ratio,
                     const std::string& scope);

}  // namespace edgetrain::compress
