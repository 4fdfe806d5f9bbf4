// See diff.hpp.
#include "scenario/diff.hpp"

#include <algorithm>
#include <map>

#include "input/text.hpp"

namespace edgetrain::scenario {

namespace text = input::text;
namespace {

using nlohmann::json;

// "/devices/3/host" as "devices.3.host" (the pointer's tokens unescaped: "~1" is "/").
std::string dotted(json::json_pointer pointer) {
  std::vector<std::string> tokens;
  while (!pointer.empty()) {
    tokens.insert(tokens.begin(), pointer.back());
    pointer.pop_back();
  }
  return text::join(tokens, ".");
}

}  // namespace

std::vector<Difference> differences(const json& before, const json& after) {
  std::vector<Difference> out;
  std::map<std::string, size_t> appended;  // per array (its pointer): elements added at its end so far
  for (const json& op : json::diff(before, after)) {
    json::json_pointer pointer(op.at("path").get<std::string>());
    const std::string kind = op.at("op").get<std::string>();
    if (kind == "add" && !pointer.empty() && pointer.back() == "-") {  // "append": name the element's index
      json::json_pointer array = pointer.parent_pointer();
      const size_t index = before.at(array).size() + appended[array.to_string()]++;
      pointer = array / index;
    }
    Difference d{dotted(pointer), std::nullopt, std::nullopt};
    if (kind != "add") d.before = before.at(pointer);
    if (kind != "remove") d.after = op.at("value");
    out.push_back(std::move(d));
  }
  return out;
}

std::string difference_text(const Difference& d) {
  auto shown = [](const std::optional<json>& v) { return v ? text::show(*v) : std::string("(absent)"); };
  return (d.path.empty() ? std::string("(the whole document)") : d.path) + " " + shown(d.before) + " -> " +
         shown(d.after);
}

std::string differences_text(const std::vector<Difference>& differences, size_t shown) {
  // Values changed first: keys added or removed mostly follow from them (another mode's keys).
  std::vector<Difference> ordered = differences;
  std::stable_partition(ordered.begin(), ordered.end(), [](const Difference& d) { return d.before && d.after; });
  std::vector<std::string> parts;
  for (size_t i = 0; i < ordered.size() && i < shown; ++i) parts.push_back(difference_text(ordered[i]));
  std::string out = text::join(parts, ", ");
  if (differences.size() > shown) out += " and " + std::to_string(differences.size() - shown) + " more";
  return out;
}

}  // namespace edgetrain::scenario
