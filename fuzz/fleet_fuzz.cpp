// Fuzz target: fleet descriptions (fleet::parse_fleet) and what the generator makes of them. Any
// JSON text is either refused with one FleetError line or accepted; an accepted description of at
// most 2,000 devices is drawn, written as a platform and a device list, and the platform must pass
// the platform check (platform::check_platform_text): the generator never writes a file that the
// check, and so SimGrid, would refuse. Every input also goes through the file reader
// (fleet::load_fleet_file: the bounded read, the nesting and duplicate-key pass, the parse), which
// refuses it with one FleetError line naming the file, or accepts what parse_fleet accepts.
// fuzz.sh: -max_len=4096
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unistd.h>

#include "fleet/draw.hpp"
#include "fleet/parse.hpp"
#include "fleet/xml.hpp"
#include "platform/check.hpp"

namespace {

[[noreturn]] void failure(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fleet_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

bool one_line(std::string_view message) {
  for (const char c : message)
    if (c >= 0 && c < 0x20) return false;
  return !message.empty();
}

// The description as a file: refused with one line starting with the file's name, or accepted.
void through_file(std::string_view text) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("edgetrain-fleet-fuzz-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(text.data(), static_cast<std::streamsize>(text.size()));
  try {
    edgetrain::fleet::load_fleet_file(file);
  } catch (const edgetrain::fleet::FleetError& e) {
    if (std::string_view(e.what()).rfind(file.string() + ":", 0) != 0 || !one_line(e.what())) {
      failure("the file reader's message is not one line naming the file", e.what());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  through_file(text);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  edgetrain::fleet::FleetSpec spec;
  try {
    spec = edgetrain::fleet::parse_fleet(doc, "platform");
  } catch (const edgetrain::fleet::FleetError& e) {
    const std::string_view message = e.what();
    bool printable = message.substr(0, 8) == "platform" && message.size() > 10;
    for (const char c : message) printable = printable && !(c >= 0 && c < 0x20);
    if (!printable) failure("not one line starting with the JSON path", e.what());
    return 0;
  }
  if (spec.devices > 2000) return 0;  // large fleets are valid, and slow to fuzz
  const edgetrain::fleet::Fleet fleet = edgetrain::fleet::draw_fleet(spec, size);
  if (fleet.devices.size() != static_cast<size_t>(spec.devices)) failure("device count", std::to_string(spec.devices));
  const std::string xml = edgetrain::fleet::platform_xml(fleet);
  edgetrain::fleet::device_list_csv(fleet);
  try {
    // Clusters of at most 100,000 hosts: a fuzzed radical must not fill the machine's memory.
    edgetrain::platform::check_platform_text(xml, "fleet.xml", {1e5 * edgetrain::platform::kClusterHostBytes});
  } catch (const edgetrain::platform::PlatformFileError& e) {
    failure("the generated platform fails the check", e.what());
  }
  return 0;
}
