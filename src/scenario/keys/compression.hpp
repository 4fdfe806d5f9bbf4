// The compression keys: the uplink compressor (`compression.*`: kind and the settings each kind
// reads), ScaDLES's adaptive switching, the downlink compressor (`compression.downlink.*`, the
// same rows copied), and the rules across them. The compressor rows are declared once, on a
// CompressorSpec, and placed wherever a compressor is configured (also the sites' uplink, in
// keys/topology.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> compression_rows();  // compression.*
std::vector<Rule> compression_rules();

// The compressor rows copied under `section` ("topology.site_compression"): same types, ranges,
// defaults and rules as the uplink's, the kind required, each filling its field of a
// CompressorSpec (place_rows puts them where the section's compressor is).
std::vector<KeySpec> compressor_copy_rows(const std::string& section);

// Rewrites every compressor section of a raw document whose kind is an alias ("int8") into the
// kind and the settings it fixes (compress/aliases.hpp), before validation; ScenarioError when the
// document sets one of those settings otherwise, or a pattern's number is out of range.
void expand_compressor_aliases(nlohmann::json& doc);

// A resolved compressor in words: "topk (ratio 0.01, scope layer, index_bits 32, error_feedback false)".
std::string compressor_text(const nlohmann::json& resolved_compressor);

}  // namespace edgetrain::scenario::keys
