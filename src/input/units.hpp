// Human quantities in scenario files: "500ms", "4MiB", "2Gf", "10Mbps". One function family
// reads them all, so every config key with a unit accepts the same spellings. A JSON number is
// already in the base unit (seconds, bytes, flops, bits per second); a string carries a unit.
// Flop suffixes follow SimGrid's spelling (f, kf, Mf, Gf, Tf, Pf). Range checks (for example
// "must be > 0") are the caller's job: negative values parse here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace edgetrain::input {

enum class Unit { Seconds, Bytes, Flops, BitsPerSecond, Count };

// The value in the base unit. Throws Error naming `json_path` and the accepted units
// when `value` is neither a number nor a string with a known unit.
double parse_quantity(const nlohmann::json& value, Unit unit, const std::string& json_path);

// For messages and documentation.
std::string_view unit_noun(Unit unit);     // "duration", "size", "amount of computation", ...
std::string_view unit_symbol(Unit unit);   // base unit: "s", "B", "f", "bit/s", "" (Count)
std::string_view unit_example(Unit unit);  // a string the parser accepts, e.g. "500ms"
std::string unit_suffixes(Unit unit);      // accepted suffixes, e.g. "us, ms, s, min, h"

}  // namespace edgetrain::input
