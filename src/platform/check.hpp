// Reading a SimGrid platform file before SimGrid does. SimGrid 3.32 aborts the process (it
// cannot be caught) on many values it does not expect: a host speed of 0, core="0", a Vivaldi
// host without coordinates, a second route between the same hosts, <include>, a Wi-Fi link
// with a latency; and it silently takes a bandwidth of 0 as an infinitely fast link. This
// module checks every element edgetrain lets through against SimGrid 3.32's rules (and
// edgetrain's own), with SimGrid's unit syntax, and reports the first problem as one line
// `FILE:LINE: what "id": what is wrong`. It sees neither SimGrid nor LibTorch: the checks are a
// pure function of the text, so a fuzz target can call check_platform_text directly.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/input_error.hpp"
#include "util/printable.hpp"

namespace edgetrain::platform {

// The one error this module throws; what() is the whole line to show. Messages quote the file's
// text, so control bytes are escaped here, once for every message (util::printable).
class PlatformFileError : public std::runtime_error, public util::InputError {
 public:
  explicit PlatformFileError(const std::string& message) : std::runtime_error(util::printable(message)) {}
};

// Routing kinds, spelled as SimGrid's documentation spells them (the file may use any case).
enum class Routing { Full, Floyd, Dijkstra, DijkstraCache, Cluster, None, Vivaldi, Wifi };
std::string_view routing_name(Routing r);

struct ZoneRef {
  std::string id;
  Routing routing = Routing::Full;
};

// Where a host was declared: its zones from the outermost in, its line, the element that made it
// ("host", or "cluster", "cabinet", "peer" for hosts those make) and its <prop>s (a cluster's
// props are each member's, as SimGrid sets them; the fleet generator writes class, site, role).
struct HostPlace {
  std::vector<ZoneRef> zones;
  int line = 0;
  std::string element = "host";
  std::map<std::string, std::string> properties;
};

// A link as the file declares it: its element ("link", "backbone", or "cabinet" / "peer" for the
// links those make), its sharing policy (upper case; the halves of a SPLITDUPLEX link are SHARED
// links "<id>_UP" and "<id>_DOWN" of element "link") and its line.
struct LinkPlace {
  std::string element = "link";
  std::string policy = "SHARED";
  int line = 0;
};

// A Wi-Fi zone: its one WIFI link, its access point, and each station (every host of the zone,
// the access point too if it is a host) with its rate level: the host property
// `wifi_rate_level`, an index into the link's list of bandwidths, default 0.
struct WifiZone {
  std::string id, link, access_point;
  std::vector<double> rates_Bps;  // one per rate level
  std::vector<std::pair<std::string, int>> stations;
  int line = 0;
};

// What later stages need to know about a platform that passed the checks.
struct PlatformInfo {
  std::map<std::string, HostPlace> hosts;                   // every host, <peer> and cluster member
  std::vector<std::string> host_order;                      // the same hosts, in file order
  std::map<std::string, LinkPlace> links;                   // every named link (not a cluster's own links)
  std::vector<WifiZone> wifi_zones;                         // in file order
  std::vector<std::pair<std::string, std::string>> config;  // <config><prop id value>, as "key", "value"
  bool has_multilevel_cluster = false;                      // a <cluster> with TORUS, FAT_TREE or DRAGONFLY
  // Some host declares wattage_per_state, some link wattage_range (SimGrid's energy plugins).
  bool host_energy = false, link_energy = false;
  // Hosts and routers joined by a route of exactly one link, or by a flat <cluster>: the only
  // connections SimGrid's ns-3 binding builds (longer routes are ignored there).
  std::vector<std::pair<std::string, std::string>> one_link_pairs;
};

// What a run needs for each host of a <cluster> (the host, its links and routes in SimGrid, and
// edgetrain's records of them), measured with GNU time on timing-only runs of two devices over
// clusters of 10,000 and 100,000 hosts: 86 MB and 506 MB peak, 4.7 kB a host.
inline constexpr double kClusterHostBytes = 4.7e3;

// The memory the platform's clusters may need (kClusterHostBytes a host): a platform whose
// clusters need more is refused before any of their hosts is made. Empty: what this machine has
// available (util/memory.hpp), read when the first cluster is met, so a cluster is as large as
// memory allows.
struct CheckLimits {
  std::optional<double> memory_bytes;
};

// Checks a platform given as text; `shown_name` is the file name used in messages.
PlatformInfo check_platform_text(std::string_view xml, const std::string& shown_name, const CheckLimits& limits = {});

// Reads `file` and checks it; a missing or unreadable file is a PlatformFileError too.
PlatformInfo check_platform_file(const std::filesystem::path& file, const CheckLimits& limits = {});

}  // namespace edgetrain::platform
