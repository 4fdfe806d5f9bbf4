// The settings of one direction's compressor: the one description the scenario loads (its
// `compression` keys, and `compression.downlink`'s) and the compressors and the sender read.
// Which kinds read which setting is a column of the kinds table (kinds.hpp); a kind ignores the
// others, which then keep these defaults.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace edgetrain::compress {

struct Config {
  // none | fp16 | topk | randomk | threshold | qsgd | terngrad | signsgd | onebit | powersgd |
  // adacomp | adacomp-bins (the kinds table)
  std::string kind = "none";
  double ratio = 0.01;          // topk, randomk, adacomp: fraction of entries kept
  std::string scope = "layer";  // topk: per layer (k_l = max(1, floor(ratio n_l))) or global
  bool packed_indices = false;  // indices in ceil(log2 n) bits instead of 32 (index_bits "packed")
  // The sender keeps what compression dropped and adds it to its next update (ErrorFeedback);
  // the scenario's default is on for the kinds whose column says so.
  bool error_feedback = false;
  double threshold = 0;   // threshold: send |g| > threshold
  int64_t levels = 16;    // qsgd: quantisation levels s
  int64_t rank = 2;       // powersgd: rank r
  int64_t bin_size = 50;  // adacomp-bins: L_T consecutive entries per bin
  // Timing-only runs of threshold, adacomp-bins and adaptive topk: the message size as a fraction
  // of the dense fp32 update (declared_payload_bytes). Empty: not given or not used.
  std::optional<double> timing_ratio = std::nullopt;
};

}  // namespace edgetrain::compress
