// See run_folder.hpp.
#include "sweep/run_folder.hpp"

#include <fstream>
#include <iterator>

#include "sweep/hash.hpp"

namespace edgetrain::sweep {
namespace {

namespace fs = std::filesystem;

// The file as JSON, or null when it is missing or does not parse.
nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return nullptr;
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

std::string text_of(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

bool final_status(const std::string& status) {
  return status == "completed" || status == "target_reached" || status == "diverged";
}

FolderState inspect_run(const fs::path& folder, const std::string& hash) {
  FolderState state;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    state.reason = "not run yet";
    return state;
  }
  const nlohmann::json scenario = read_json(folder / "scenario.json");
  const nlohmann::json summary = read_json(folder / "summary.json");
  if (scenario.is_discarded() || scenario.is_null() || summary.is_discarded() || !summary.is_object()) {
    state.reason = "no complete results";
    return state;
  }
  if (scenario_hash(scenario) != hash) {
    state.reason = "holds the results of another scenario";
    return state;
  }
  state.ours = true;
  state.summary = summary;
  state.status = text_of(summary, "status");
  state.reason = text_of(summary, "status_reason");
  state.finished = final_status(state.status);
  return state;
}

}  // namespace edgetrain::sweep
