// See selection.hpp.
#include "scenario/keys/selection.hpp"

#include <cstdint>

#include "scenario/error.hpp"
#include "scenario/keys/python_class.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {

namespace {
PythonClass* selection_python(Scenario& s) { return &s.training.selection.python; }
}  // namespace

std::vector<KeySpec> selection_rows() {
  return {
      section_key("training.selection",
                  "Client selection in synchronous rounds (sync, scadles, local-sgd with aggregation sync): which "
                  "devices the server sends the model to each round; only they compute and upload.")
          .allowed_only_when(when("training.mode", {"sync", "scadles", "local-sgd"}))
          .null_default("every device, every round"),
      enum_key("training.selection.kind", {"all", "random", "available", "oort", "python"},
               "all = every device; random = a seeded uniform sample of devices each round, without replacement "
               "(FedAvg's client sampling); available = only devices that are on, not busy with an earlier "
               "round and (streaming) hold a full batch, all of them or a seeded sample; oort = Oort's guided "
               "selection among the available devices (Lai et al., OSDI 2021; formula in docs/explanation/sync.md); "
               "python = a class of your own picks among the available devices, named by `python` "
               "(docs/how-to/python-policies.md).")
          .def("all")
          .fills(&Scenario::training, &TrainingSpec::selection, &SelectionSpec::kind),
      integer_key("training.selection.per_round",
                  "Devices picked each round (random, available, oort, python): K, the updates a round aggregates.")
          .allowed_only_when(when("training.selection.kind", {"random", "available", "oort", "python"}))
          .at_least(1)
          .limit(1e6, "a million devices")
          .null_default("from `fraction`")
          .fills(&Scenario::training, &TrainingSpec::selection, &SelectionSpec::per_round),
      number_key("training.selection.fraction",
                 "The share of devices picked each round (random, available, oort, python), rounded to the nearest whole "
                 "number (at least 1).")
          .allowed_only_when(when("training.selection.kind", {"random", "available", "oort", "python"}))
          .above(0)
          .at_most(1)
          .null_default("from `per_round`")
          .fills(&Scenario::training, &TrainingSpec::selection, &SelectionSpec::fraction),
      number_key("training.selection.over_selection",
                 "Over-selection with a deadline (random, available, oort; needs per_round or fraction): selects "
                 "ceil(K x (1 + over_selection)) devices and aggregates the first K updates to arrive; the round "
                 "closes then, and those that come after are late.")
          .allowed_only_when(when("training.selection.kind", {"random", "available", "oort", "python"}))
          .at_least(0)
          .at_most(10)
          .def(0.0)
          .fills(&Scenario::training, &TrainingSpec::selection, &SelectionSpec::over_selection),
      number_key("training.selection.exploration",
                 "Oort: the share of each round's picks that go to never-picked devices (seeded, uniform).")
          .allowed_only_when(when("training.selection.kind", {"oort"}))
          .at_least(0)
          .at_most(1)
          .def(0.1)
          .fills(&Scenario::training, &TrainingSpec::selection, &SelectionSpec::exploration),
      number_key("training.selection.alpha",
                 "Oort: the straggler penalty's exponent, (T / t)^alpha for a device whose last round time t "
                 "exceeds the preferred round duration T.")
          .allowed_only_when(when("training.selection.kind", {"oort"}))
          .at_least(0)
          .at_most(100)
          .def(2.0)
          .fills(&Scenario::training, &TrainingSpec::selection, &SelectionSpec::alpha),
      quantity_key("training.selection.preferred_round_s", Unit::Seconds,
                   "Oort: the preferred round duration T of the straggler penalty.")
          .allowed_only_when(when("training.selection.kind", {"oort"}))
          .above(0)
          .null_default("the median of the last round's times")
          .fills(&Scenario::training, &TrainingSpec::selection, &SelectionSpec::preferred_round_s),
      python_class_key("training.selection.python",
                       "python: the selection's class, FILE.py:CLASS (the file relative to the scenario), with a "
                       "method select(server_round, candidates, num_clients) and optionally feedback(server_round, "
                       "reports); subclass edgetrain.policies.SelectionPolicy.",
                       selection_python, "training.selection.kind")
          .allowed_only_when(when("training.selection.kind", {"python"})),
      python_settings_key("training.selection.settings", "python: the class's keyword arguments.", selection_python)
          .allowed_only_when(when("training.selection.kind", {"python"})),
      integer_key("training.selection.min_updates",
                  "A round applies its updates only when at least this many arrived; at its timeout with fewer it "
                  "waits on or is skipped (`below_min`), and a round that can get no more applies nothing (what "
                  "arrived is dropped; selections.csv says `discarded`). At most the updates a round aggregates.")
          .at_least(1)
          .limit(1e6, "a million devices")
          .null_default("a round applies whatever arrived")
          .fills(&Scenario::training, &TrainingSpec::selection, &SelectionSpec::min_updates),
      enum_key("training.selection.below_min", {"extend", "skip"},
               "With `min_updates`, a round that has fewer at training.round_timeout_s: extend = it waits on for the "
               "updates still owed (as Flower waits for min_fit_clients); skip = it closes at once, applying nothing.")
          .def("extend")
          .fills(&Scenario::training, &TrainingSpec::selection, &SelectionSpec::below_min),
  };
}

namespace {

// training.selection.min_updates: reachable (at most K, or the devices), on a flat topology's rounds,
// and not with secure aggregation (its threshold decides how few updates a round may sum).
void check_min_updates(const nlohmann::json& r, const nlohmann::json& sel) {
  if (!sel.contains("min_updates") || sel.at("min_updates").is_null()) return;
  const int64_t min = sel.at("min_updates").get<int64_t>();
  const std::string at = "training.selection.min_updates: ";
  if (r.at("topology").at("kind") != "flat")
    throw ScenarioError(at + "flat topology only (a hierarchy's sites and gossip run rounds of their own)");
  if (is_given(r.at("privacy"), "secure_aggregation"))
    throw ScenarioError(at + "not with privacy.secure_aggregation (its threshold decides how few updates a round sums)");
  if (is_given(sel, "per_round") && min > sel.at("per_round").get<int64_t>())
    throw ScenarioError(at + std::to_string(min) + " is more than per_round " + sel.at("per_round").dump() +
                        ", the updates a round aggregates: no round would apply");
  const auto& population = r.at("population");
  const bool slots = population.is_object() && population.at("hosts") == "slots";
  if (!slots && r.at("devices").is_array() && min > static_cast<int64_t>(r.at("devices").size()))
    throw ScenarioError(at + std::to_string(min) + " is more than the " + std::to_string(r.at("devices").size()) +
                        " devices: no round would apply");
}

}  // namespace

std::vector<Rule> selection_rules() {
  return {
      {"training.selection",
       "Random and oort selection need exactly one of `per_round` (at most the number of devices) and "
       "`fraction`, available at most one; over_selection needs one of them; synchronous rounds; not with data "
       "injection (it plans over every device). min_updates at most per_round and the devices, on a flat "
       "topology, not with secure aggregation.",
       [](const nlohmann::json& r) {
         const auto& t = r.at("training");
         if (!t.contains("selection") || t.at("selection").is_null()) return;
         const auto& sel = t.at("selection");
         const std::string kind = sel.at("kind").get<std::string>();
         check_min_updates(r, sel);
         if (kind == "all") return;
         const bool per_round = is_given(sel, "per_round"), fraction = is_given(sel, "fraction");
         if (per_round && fraction) {
           throw ScenarioError("training.selection: give one of per_round and fraction, not both");
         }
         if (kind != "available" && !per_round && !fraction) {
           throw ScenarioError("training.selection: kind " + kind + " needs one of per_round and fraction");
         }
         if (sel.at("over_selection").get<double>() > 0 && !per_round && !fraction) {
           throw ScenarioError(
               "training.selection.over_selection: needs per_round or fraction (K, the updates a round "
               "aggregates)");
         }
         if (applies_on_arrival(t)) {  // local-sgd with aggregation async (the section row refuses async)
           throw ScenarioError("training.selection: needs synchronous rounds (local-sgd with aggregation sync)");
         }
         if (is_given(t, "injection")) {
           throw ScenarioError(
               "training.selection: not supported with training.injection (injection plans every "
               "round over every device); set one of them to null");
         }
         // A population's devices are counted once the fleet is drawn (scenario/population.cpp).
         const auto& population = r.at("population");
         const bool slots = population.is_object() && population.at("hosts") == "slots";
         if (per_round && !slots && r.at("devices").is_array() &&
             sel.at("per_round").get<int64_t>() > static_cast<int64_t>(r.at("devices").size())) {
           throw ScenarioError("training.selection.per_round: " + sel.at("per_round").dump() + " is more than the " +
                               std::to_string(r.at("devices").size()) + " devices");
         }
       }},
  };
}

}  // namespace edgetrain::scenario::keys
