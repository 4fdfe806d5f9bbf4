// Fuzz target: the platform file check that runs before SimGrid reads a platform
// (platform::check_platform_text). Any text is either accepted or refused with one
// PlatformFileError line naming the file; it never crashes, hangs or throws anything else
// (SimGrid would abort on what the check lets through, so the check must hold on any input).
// fuzz.sh: -max_len=8192
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "platform/check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  try {
    // Clusters of at most 100,000 hosts: a fuzzed radical must not fill the machine's memory.
    edgetrain::platform::check_platform_text(xml, "platform.xml", {1e5 * edgetrain::platform::kClusterHostBytes});
  } catch (const edgetrain::platform::PlatformFileError& e) {
    const std::string_view message = e.what();
    bool printable = message.substr(0, 13) == "platform.xml:";
    for (const char c : message) printable = printable && !(c >= 0 && c < 0x20);
    if (!printable) {
      std::fprintf(stderr, "platform_fuzz: not one line naming the file: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
