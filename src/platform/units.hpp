// SimGrid 3.32's spelling of quantities in platform files, read the way its parser reads them
// (xbt_parse_units): a decimal number followed by a unit suffix, the unit-less form meaning the
// base unit. Speeds "1Gf", "2.5Mf", "1megaflops"; bandwidths "10Mbps", "1.25MBps", "1GiBps";
// times "10ms", "5us", "0". Kept free of SimGrid so the platform checker runs before it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace edgetrain::platform {

enum class Quantity { Speed, Bandwidth, Time };

// The value in the base unit (flop/s, byte/s, s), or nullopt when `text` is not a finite number
// with one of SimGrid's suffixes for `kind`. Signs are kept: range checks are the caller's.
std::optional<double> parse_quantity(std::string_view text, Quantity kind);

// A list of values separated as SimGrid separates them (pstate speeds by ',', Wi-Fi rates by ','
// or ';'): each item's text, trimmed of spaces for speeds as SimGrid does.
std::vector<std::string> split_list(std::string_view text, Quantity kind);

// For messages: "a speed such as \"2Gf\"" and the like.
std::string expected_form(Quantity kind);

}  // namespace edgetrain::platform
