// See table.hpp. The order here is the table's: validation resolves the rows in it (a row's
// conditions and defaults look at rows before it), runs the rules in it (the first broken rule is
// the one reported), and `edgetrain schema` documents both in it.
#include "scenario/keys/table.hpp"

#include <stdexcept>
#include <string_view>

#include "scenario/keys/compression.hpp"
#include "scenario/keys/data.hpp"
#include "scenario/keys/faults.hpp"
#include "scenario/keys/model.hpp"
#include "scenario/keys/population.hpp"
#include "scenario/keys/privacy.hpp"
#include "scenario/keys/report.hpp"
#include "scenario/keys/run.hpp"
#include "scenario/keys/selection.hpp"
#include "scenario/keys/strategy.hpp"
#include "scenario/keys/stream.hpp"
#include "scenario/keys/topology.hpp"
#include "scenario/keys/traces.hpp"
#include "scenario/keys/training.hpp"
#include "util/limits.hpp"

namespace edgetrain::scenario::keys {
namespace {

// The rules in validation order, by the path each names; a path named twice takes its file's
// rules with that path in turn.
constexpr std::string_view kRuleOrder[] = {
    "model.name",
    "model.conv_padding",
    "stop.target_accuracy",
    "compression.timing_ratio",
    "dataset.shape",
    "dataset.partition.kind",
    "stop",
    "devices",
    "training.compute_profile_file",
    "training.mode",
    "training.batch_min",
    "compression.error_feedback",
    "faults.devices",
    "faults.devices[].device",
    "faults.devices",
    "faults.links",
    "traces",
    "traces.availability",
    "traces.capacity",
    "training.round_timeout_s",
    "training.deadline",
    "topology.kind",
    "training.selection",
    "training.buffer_size",
    "training.injection",
    "population.hosts",
    "privacy.dp",
    "privacy.dp.order",
    "privacy.secure_aggregation",
    "stop.epsilon",
    "strategy",
    "defence",
    "attack",
};

}  // namespace

std::vector<KeySpec> table_rows() {
  // Population first (the platform row reads it), the devices after the global stream (each device's stream copies its rows), training.compute
  // before the data set's and the model's keys (which depend on it), the topology after the
  // devices and the server (which its sites name).
  std::vector<KeySpec> table;
  for (const auto& part : {population_rows(), run_rows(), stream_rows(), device_rows(), device_stream_rows(),
                           compute_rows(), data_rows(), model_rows(), training_rows(), selection_rows(),
                           compression_rows(), fault_rows(), trace_rows(), topology_rows(), report_rows(), privacy_rows(),
                           strategy_rows()}) {
    table.insert(table.end(), part.begin(), part.end());
  }
  for (auto& k : table) {
    if (is_duration(k) && !k.max) k.limit(util::kMaxTimeS, "about 31.7 years: 1us stays above the clock's rounding");
  }
  return table;
}

std::vector<Rule> table_rules() {
  std::vector<Rule> all;
  for (const auto& part : {population_rules(), run_rules(), data_rules(), model_rules(), training_rules(),
                           selection_rules(), compression_rules(), fault_rules(), trace_rules(), topology_rules(),
                           report_rules(), privacy_rules(), strategy_rules()}) {
    all.insert(all.end(), part.begin(), part.end());
  }
  std::vector<bool> taken(all.size(), false);
  std::vector<Rule> ordered;
  for (std::string_view path : kRuleOrder) {
    size_t i = 0;
    while (i < all.size() && (taken[i] || all[i].path != path)) ++i;
    if (i == all.size()) throw std::logic_error("schema: no rule for \"" + std::string(path) + "\" in the key files");
    taken[i] = true;
    ordered.push_back(all[i]);
  }
  if (ordered.size() != all.size()) throw std::logic_error("schema: a rule of the key files is not in kRuleOrder");
  return ordered;
}

}  // namespace edgetrain::scenario::keys
