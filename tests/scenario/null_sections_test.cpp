// One rule for every section of the schema: null means what leaving the section out means. Walks
// the schema for every section (declared optional ones such as "compression" and implicit groups such
// as "topology" or "stream.buffer") and compares the scenario with the section null and without it.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "helpers.hpp"
#include "scenario/schema.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

// Every section outside list entries, as dotted paths, parents before children.
void sections_below(const std::string& section, std::vector<std::string>& out) {
  for (const std::string& name : child_names(section)) {
    const std::string full = section.empty() ? name : section + "." + name;
    const KeySpec* k = find_key(full);
    if (k && k->type != ValueType::Section) continue;  // a value (a platform, a list, a rate...)
    if (!is_section(full)) continue;
    out.push_back(full);
    sections_below(full, out);
  }
}

// The resolved scenario, or the one-line error.
std::string outcome(const TempDir& dir, const json& doc) {
  try {
    return parse_in(dir, doc).resolved.dump();
  } catch (const ScenarioError& e) {
    return std::string("error: ") + e.what();
  }
}

// minimal_doc() with the parents of `path` present (as given, or {}), and `path` itself null or absent.
json with_section(const std::string& path, bool null) {
  json doc = minimal_doc();
  json* node = &doc;
  size_t start = 0;
  for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', start)) {
    json& parent = (*node)[path.substr(start, dot - start)];
    if (!parent.is_object()) parent = json::object();
    node = &parent;
    start = dot + 1;
  }
  const std::string leaf = path.substr(start);
  if (null) {
    (*node)[leaf] = nullptr;
  } else {
    node->erase(leaf);
  }
  return doc;
}

}  // namespace

TEST_CASE("null sections: every section of the schema given as null is the section left out") {
  std::vector<std::string> sections;
  sections_below("", sections);
  const std::set<std::string> found(sections.begin(), sections.end());
  // The sections the scenario reference documents as objects, optional or with defaults throughout.
  for (const char* s : {"dataset", "dataset.partition", "model", "training", "training.injection",
                        "training.selection", "eval", "stop", "report", "stream", "stream.buffer", "compression",
                        "compression.adaptive", "compression.downlink", "faults", "topology",
                        "topology.site_compression"}) {
    CAPTURE(s);
    CHECK(found.count(s) == 1);
  }
  TempDir dir;
  for (const std::string& s : sections) {
    CAPTURE(s);
    const std::string given_null = outcome(dir, with_section(s, true));
    CHECK(given_null == outcome(dir, with_section(s, false)));
  }
  // The top-level ones the minimal scenario leaves out resolve to their defaults when null.
  for (const char* s : {"topology", "training", "eval", "report", "compression", "faults", "stream"}) {
    CAPTURE(s);
    CHECK(outcome(dir, with_section(s, true)).rfind("error", 0) != 0);
  }
  // Anything else than an object or null is still one line naming the section.
  json doc = minimal_doc();
  doc["topology"] = "flat";
  CHECK(parse_error(dir, doc) ==
        "topology: expected an object (with keys kind, graph, degree, sites, site_rounds, cloud_aggregation, "
        "site_compression) or null, got \"flat\"");
}
