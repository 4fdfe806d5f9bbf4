// The scenario's platform while its document is resolved: the file (SimGrid XML, or a fleet
// description from which the platform is generated), the what-ifs on it (`platform.links.<link>`,
// `platform.hosts.<host>`, and for a fleet any key of its description), and the checked platform
// that device selectors read. Everything is checked here, before anything is simulated, so that
// load_scenario (and a sweep checking all its runs) refuses a bad what-if with one line naming
// its key. No SimGrid: the platform is read with src/platform (pugixml).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "platform/check.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::scenario {

struct ResolveContext;

class PlatformSource {
 public:
  // Resolves the `platform` value `raw` (JSON path `at`): a path, or {"file": path, "links": ...,
  // "hosts": ..., fleet keys}. Returns the resolved value: the absolute path when nothing is
  // changed, else the object with each what-if's value in SI units (bit/s, s, flop/s).
  // `seed` generates a fleet whose description sets none. `slots`: population.hosts "slots" (the fleet's
  // devices stay records, and fill() gives the scenario its Population instead of a host per device).
  nlohmann::json resolve(const nlohmann::json& raw, const std::string& at, const ResolveContext& ctx, uint64_t seed,
                         bool slots);

  // The checked platform (what-ifs applied), read on first use. Throws ScenarioError.
  const platform::PlatformInfo& info();
  const std::filesystem::path& file() const { return file_; }

  // population.hosts "slots", as resolve() was told.
  bool slots() const { return slots_; }
  size_t population_size() const { return population_ ? population_->fleet.devices.size() : 0; }

  // A device selector's resolved form, written as `devices` in the resolved scenario.
  void set_selector(nlohmann::json resolved) { selector_ = std::move(resolved); }

  // Moves what was found into the typed scenario: the platform text and what-ifs, the checked
  // platform, and the device selector as written in place of the list of devices.
  void fill(Scenario& s);

 private:
  // The text of the platform before what-ifs: the XML file's, or the fleet's generated one.
  const std::string& base_text();
  // Generates the platform from the fleet description with `patch` merged in; the patch's keys go
  // into `resolved`, and each into the what-ifs with the description's value before.
  void generate_fleet(const nlohmann::json& patch, const std::string& at, uint64_t scenario_seed,
                      nlohmann::json& resolved);

  std::filesystem::path file_;
  std::optional<std::string> base_;  // read on first use
  std::string edited_;               // the text with the what-ifs applied (empty: none)
  bool generated_ = false;           // a fleet description: the text was generated
  std::vector<PlatformOverride> overrides_;
  std::vector<LinkDirectionSetting> directions_;
  std::shared_ptr<platform::PlatformInfo> info_;
  std::optional<nlohmann::json> selector_;
  bool slots_ = false;
  std::shared_ptr<Population> population_;  // slots_: the drawn fleet
};

}  // namespace edgetrain::scenario
