// Platform what-ifs written into the platform's text before SimGrid reads it: the bandwidth and
// latency of a <link> or <backbone>, the speed and core count of a <host>. pugixml finds the
// elements; only the attribute values change in the text, every other byte is kept (comments,
// DOCTYPE, layout), so line numbers in later messages still point at the file's lines. (pugixml's
// own writer would drop the line breaks between the declaration, the DOCTYPE and <platform>.)
// No SimGrid here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace edgetrain::platform {

enum class Attribute { Bandwidth, Latency, Speed, Cores };

// Sets `attribute` of the element whose id is `id` to `text` (SimGrid's spelling: "1e9bps").
struct AttributeEdit {
  std::string id;
  Attribute attribute;
  std::string text;
};

struct EditedText {
  std::string xml;
  std::vector<std::string> before;  // each edit's attribute text before it ("1" for a missing core)
};

// `xml` must have passed check_platform_text, and every edit name a <link> or <backbone>
// (Bandwidth, Latency) or <host> (Speed, Cores) of it: anything else is a PlatformFileError
// (callers check names first, with their own messages). `note`, when given, is written as an XML
// comment just before <platform>, on its line (what changed, for whoever reads the file).
EditedText edit_platform_text(std::string_view xml, const std::vector<AttributeEdit>& edits,
                              const std::string& note = "");

// The attribute's text as the file writes it (nullopt when the element or attribute is absent).
std::string attribute_text(std::string_view xml, const std::string& id, Attribute attribute);

// SimGrid's spelling of a value in its base unit (bit/s, s, flop/s): the shortest decimal that
// reads back as the same double, with the unit suffix ("1e+09bps", "0.02s", "2e+09f").
std::string simgrid_text(double value, Attribute attribute);

}  // namespace edgetrain::platform
