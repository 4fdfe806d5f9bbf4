// Payload sizes without data, for timing-only runs: the exact length encode() would produce for
// every kind whose wire format has a fixed size for a given layout (see the wire formats at the
// top of dense.cpp, sparse.cpp, quantize.cpp and powersgd.cpp), and a declared size for the
// kinds whose size depends on the values (threshold, adacomp-bins; ScaDLES's adaptive top-k,
// which picks dense or compressed per step from the data).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compress/compressor.hpp"

namespace edgetrain::compress {

// Exactly make_compressor(config, layers)->encode(u, context).payload.size() for any update u
// and context, or nullopt for the kinds whose row has no formula (threshold, adacomp-bins).
// Throws what make_compressor throws for a bad setting or layout (it builds the compressor once
// to check them).
std::optional<int64_t> formula_payload_bytes(const Config& config, const std::vector<Layer>& layers);

// The size a declared ratio stands for: round(ratio x the dense fp32 payload, 4 N bytes),
// for the data-dependent kinds (timing_ratio in the scenario).
int64_t declared_payload_bytes(const std::vector<Layer>& layers, double ratio);

// The size a timing-only run charges for one payload: the formula, else the declared ratio
// (config.timing_ratio); nullopt for a data-dependent kind with no ratio declared.
std::optional<int64_t> planned_payload_bytes(const Config& config, const std::vector<Layer>& layers);

}  // namespace edgetrain::compress
