// Constructors of the individual compressors, used by the factory (make_compressor).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compress/compressor.hpp"

namespace edgetrain::compress {

// dense.cpp
std::unique_ptr<Compressor> make_none(const Config&, const std::vector<Layer>&);
std::unique_ptr<Compressor> make_fp16(const Config&, const std::vector<Layer>&);
// sparse.cpp
std::unique_ptr<Compressor> make_topk(const Config&, const std::vector<Layer>&);
std::unique_ptr<Compressor> make_randomk(const Config&, const std::vector<Layer>&);
std::unique_ptr<Compressor> make_threshold(const Config&, const std::vector<Layer>&);
std::unique_ptr<Compressor> make_adacomp(const Config&, const std::vector<Layer>&);
std::unique_ptr<Compressor> make_adacomp_bins(const Config&, const std::vector<Layer>&);
// quantize.cpp
std::unique_ptr<Compressor> make_qsgd(const Config&, const std::vector<Layer>&);
std::unique_ptr<Compressor> make_terngrad(const Config&, const std::vector<Layer>&);
std::unique_ptr<Compressor> make_signsgd(const Config&, const std::vector<Layer>&);
std::unique_ptr<Compressor> make_onebit(const Config&, const std::vector<Layer>&);
// powersgd.cpp
std::unique_ptr<Compressor> make_powersgd(const Config&, const std::vector<Layer>&);

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
