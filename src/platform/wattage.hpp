// The energy properties of SimGrid 3.32's energy plugins, checked before SimGrid reads them (it
// aborts on a malformed value, or silently reads "10W" as 10): on a host, `wattage_per_state`
// ("idle:epsilon:all_cores" or "idle:all_cores" watts, one per pstate, comma separated) and
// `wattage_off`; on a link, `wattage_range` ("idle:busy" watts). Each function returns what is
// wrong as the end of a message ("wattage_per_state ...: ..."), or "" when the properties are
// fine. Pure functions of the text: no SimGrid.
#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace edgetrain::platform {

// The host properties SimGrid's host energy plugin reads.
constexpr const char* kHostWattage = "wattage_per_state";
constexpr const char* kHostWattageOff = "wattage_off";
// The link property SimGrid's link energy plugin reads.
constexpr const char* kLinkWattage = "wattage_range";

// A host's properties against its number of pstates (speeds).
std::string host_wattage_problem(const std::map<std::string, std::string>& properties, size_t pstates);

// A link's properties; `wifi`: a WIFI link, which SimGrid's link energy plugin skips.
std::string link_wattage_problem(const std::map<std::string, std::string>& properties, bool wifi);

}  // namespace edgetrain::platform
