// What each family file defines for the kinds table (kinds.cpp): per kind its factory and, where
// the payload's length does not depend on the data, its size formula, both beside the wire
// format they build and restate. Also the layout rules every family shares.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compress/compressor.hpp"

namespace edgetrain::compress {

// Builds a kind's compressor; throws ConfigError naming a setting it cannot work with.
using CompressorFactory = std::unique_ptr<Compressor>(const Config&, const std::vector<Layer>&);
// Exactly the length of every payload the kind's encoder writes for this config and layout,
// whatever the update and context. Called only with settings and a layout the factory accepted.
using SizeFormula = int64_t(const Config&, const std::vector<Layer>&);

// dense.cpp
CompressorFactory make_none, make_fp16;
SizeFormula none_bytes, fp16_bytes;
// sparse.cpp (threshold and adacomp-bins: no formula, their size depends on the data)
CompressorFactory make_topk, make_randomk, make_threshold, make_adacomp, make_adacomp_bins;
SizeFormula topk_bytes, randomk_bytes, adacomp_bytes;
// quantize.cpp
CompressorFactory make_qsgd, make_terngrad, make_signsgd, make_onebit;
SizeFormula qsgd_bytes, terngrad_bytes, signsgd_bytes, onebit_bytes;
// powersgd.cpp
CompressorFactory make_powersgd;
SizeFormula powersgd_bytes;

// Layout rules every compressor shares (defined in sparse.cpp): layers tile the flat vector in
// order; keep counts are k = max(1, floor(ratio n)).
namespace detail {
int64_t layout_size(const std::vector<Layer>& layers);
void check_update_size(size_t size, int64_t expected);
void check_ratio(double ratio);
// Top-k selection scope: "layer" or "global".
void check_scope(const std::string& scope);
int64_t keep_count(double ratio, int64_t n);
// Quantisers and PowerSGD reject NaN/Inf input (their scales would be meaningless).
void check_finite(std::span<const float> update);
}  // namespace detail

}  // namespace edgetrain::compress
