// The default the schema gives a key a resolved scenario lacks (what `edgetrain compare` compares a
// missing key by): for every key another mode or a compressor adds, the value the resolver itself
// writes when the key is left out, so the two cannot drift apart.
#include "scenario/schema_default.hpp"

#include <doctest/doctest.h>

#include <map>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

// Every leaf by dotted path (as edgetrain compare names them).
void flatten(const json& j, const std::string& path, std::map<std::string, json>& out) {
  if (j.is_object() && !j.empty()) {
    for (const auto& [k, v] : j.items()) flatten(v, path.empty() ? k : path + "." + k, out);
  } else if (j.is_array() && !j.empty()) {
    for (size_t i = 0; i < j.size(); ++i) flatten(j[i], path + "." + std::to_string(i), out);
  } else {
    out[path] = j;
  }
}

std::map<std::string, json> leaves(const json& j) {
  std::map<std::string, json> out;
  flatten(j, "", out);
  return out;
}

// Every leaf that `with` holds and `without` lacks, by dotted path.
std::vector<std::string> added_keys(const json& without, const json& with) {
  const auto a = leaves(without), b = leaves(with);
  std::vector<std::string> keys;
  for (const auto& [k, v] : b)
    if (!a.count(k)) keys.push_back(k);
  return keys;
}

}  // namespace

TEST_CASE("schema_default: the keys another setting brings in take the values the resolver gives them") {
  TempDir dir;
  dir.write("platform.xml", "<platform/>");
  const json sync = parse_in(dir, minimal_doc()).resolved;
  for (const std::vector<std::string>& sets :
       std::vector<std::vector<std::string>>{{"training.mode=async"},
                                             {"training.mode=local-sgd"},
                                             {"compression.kind=topk"},
                                             {"compression.kind=signsgd"},
                                             {"training.selection.kind=random", "training.selection.per_round=1"}}) {
    CAPTURE(sets.front());
    const json other = parse_in(dir, minimal_doc(), sets).resolved;
    const std::vector<std::string> added = added_keys(sync, other);
    CHECK(!added.empty());
    for (const std::string& key : added) {
      CAPTURE(key);
      const auto d = schema_default(key, other);  // decided by the document that has the key's context
      REQUIRE(d);
      const json given = leaves(other).at(key);
      // Keys set on the command line are not defaults; every other added key is one.
      const bool set_here = std::any_of(sets.begin(), sets.end(), [&](const std::string& s) { return s.rfind(key + "=", 0) == 0; });
      if (!set_here) CHECK(*d == given);
    }
  }
}

TEST_CASE("schema_default: conditional defaults follow the document, required keys and unknown keys have none") {
  TempDir dir;
  dir.write("platform.xml", "<platform/>");
  const json plain = parse_in(dir, minimal_doc()).resolved;
  const json sign = parse_in(dir, minimal_doc(), {"compression.kind=signsgd"}).resolved;
  CHECK(schema_default("compression.error_feedback", sign) == json(true));  // default true for signsgd
  CHECK(schema_default("compression.error_feedback", plain) == json(false));
  CHECK(schema_default("compression.kind", plain) == json("none"));
  CHECK(schema_default("training.round_timeout_s", plain) == json(nullptr));
  CHECK(!schema_default("server", plain));  // required
  CHECK(!schema_default("training.no_such_key", plain));
  CHECK(!schema_default("compression.downlink.kind", plain));  // required inside its section
}
