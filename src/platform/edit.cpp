// See edit.hpp.
#include "platform/edit.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <pugixml.hpp>

#include "platform/check.hpp"

namespace edgetrain::platform {
namespace {

const char* attribute_name(Attribute a) {
  switch (a) {
    case Attribute::Bandwidth: return "bandwidth";
    case Attribute::Latency: return "latency";
    case Attribute::Speed: return "speed";
    case Attribute::Cores: return "core";
  }
  return "";
}

bool fits(const pugi::xml_node& node, Attribute a) {
  const std::string_view tag = node.name();
  if (a == Attribute::Speed || a == Attribute::Cores) return tag == "host";
  return tag == "link" || tag == "backbone";
}

// Every element with an id, by id (ids may repeat across kinds: a host and a link "pi-1").
void index(const pugi::xml_node& node, std::multimap<std::string, pugi::xml_node>& out) {
  for (pugi::xml_node child = node.first_child(); child; child = child.next_sibling()) {
    if (child.type() != pugi::node_element) continue;
    if (const pugi::xml_attribute id = child.attribute("id")) out.emplace(id.value(), child);
    index(child, out);
  }
}

struct Document {
  pugi::xml_document doc;
  std::multimap<std::string, pugi::xml_node> by_id;

  explicit Document(std::string_view xml) {
    const auto parsed = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default | pugi::parse_doctype);
    if (!parsed) {
      throw PlatformFileError(std::string("platform what-ifs: cannot parse the platform: ") + parsed.description());
    }
    index(doc, by_id);
  }

  pugi::xml_node element(const std::string& id, Attribute a) const {
    const auto [first, last] = by_id.equal_range(id);
    for (auto it = first; it != last; ++it) {
      if (fits(it->second, a)) return it->second;
    }
    throw PlatformFileError("platform what-ifs: no element with id \"" + id + "\" has a " + attribute_name(a) +
                            " attribute to change");
  }
};

std::string current(const pugi::xml_node& node, Attribute a) {
  const pugi::xml_attribute attr = node.attribute(attribute_name(a));
  if (!attr) return a == Attribute::Cores ? "1" : "";
  return attr.value();
}

// Where, in the text, an edit replaces bytes: [from, to) becomes `text`.
struct Splice {
  size_t from, to;
  std::string text;
};

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ':' || c == '.';
}

// The splice that sets attribute `name` in the start tag beginning at `tag` ("<link ...>").
Splice splice_attribute(std::string_view xml, size_t tag, const char* name, const std::string& value) {
  size_t i = tag + 1;
  while (i < xml.size() && name_char(xml[i])) ++i;  // the element's name
  while (i < xml.size()) {
    while (i < xml.size() && std::isspace(static_cast<unsigned char>(xml[i]))) ++i;
    if (i >= xml.size() || xml[i] == '/' || xml[i] == '>') break;
    const size_t name_start = i;
    while (i < xml.size() && name_char(xml[i])) ++i;
    const std::string_view attr = xml.substr(name_start, i - name_start);
    while (i < xml.size() && (std::isspace(static_cast<unsigned char>(xml[i])) || xml[i] == '=')) ++i;
    const char quote = i < xml.size() ? xml[i] : '"';
    const size_t value_start = i + 1;
    const size_t value_end = xml.find(quote, value_start);
    if (value_end == std::string_view::npos) break;
    if (attr == name) return {value_start, value_end, value};
    i = value_end + 1;
  }
  if (i >= xml.size()) throw PlatformFileError("platform what-ifs: cannot find the end of a start tag");
  return {i, i, " " + std::string(name) + "=\"" + value + "\""};  // before "/>" or ">"
}

}  // namespace

EditedText edit_platform_text(std::string_view xml, const std::vector<AttributeEdit>& edits, const std::string& note) {
  const Document d(xml);
  EditedText out;
  std::map<size_t, Splice> splices;  // by position: applied from the end, so positions stay valid
  std::map<std::pair<size_t, Attribute>, size_t> seen;
  for (const AttributeEdit& e : edits) {
    const pugi::xml_node node = d.element(e.id, e.attribute);
    out.before.push_back(current(node, e.attribute));
    const auto tag = static_cast<size_t>(node.offset_debug()) - 1;  // pugixml points at the name, after '<'
    const Splice s = splice_attribute(xml, tag, attribute_name(e.attribute), e.text);
    splices[s.from] = s;  // a second edit of the same attribute replaces the first
  }
  if (!note.empty()) {
    const auto root = static_cast<size_t>(d.doc.document_element().offset_debug()) - 1;
    std::string comment = note;
    for (size_t p = comment.find("--"); p != std::string::npos; p = comment.find("--")) comment.replace(p, 2, "- ");
    std::replace(comment.begin(), comment.end(), '\n', ' ');
    splices[root] = {root, root, "<!-- " + comment + " -->"};
  }
  out.xml = std::string(xml);
  for (auto it = splices.rbegin(); it != splices.rend(); ++it) {
    out.xml.replace(it->second.from, it->second.to - it->second.from, it->second.text);
  }
  return out;
}

std::string attribute_text(std::string_view xml, const std::string& id, Attribute attribute) {
  const Document d(xml);
  return current(d.element(id, attribute), attribute);
}

std::string simgrid_text(double value, Attribute attribute) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, result.ptr);
  switch (attribute) {
    case Attribute::Bandwidth: return text + "bps";
    case Attribute::Latency: return text + "s";
    case Attribute::Speed: return text + "f";
    case Attribute::Cores: return text;
  }
  return text;
}

}  // namespace edgetrain::platform
