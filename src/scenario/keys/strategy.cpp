// See strategy.hpp.
#include "scenario/keys/strategy.hpp"

#include <fnmatch.h>

#include <cstdint>
#include <set>

#include "scenario/device_selector.hpp"
#include "scenario/error.hpp"
#include "scenario/fill.hpp"
#include "scenario/keys/python_class.hpp"
#include "scenario/platform_source.hpp"
#include "scenario/rows.hpp"
#include "scenario/validate.hpp"

namespace edgetrain::scenario::keys {

namespace {

// attack.devices: a glob, kept as given, or a host selector, resolved to the names of the devices on its hosts.
// Either must name at least one device.
nlohmann::json resolve_attackers(const nlohmann::json* raw, const std::string& at, const nlohmann::json& resolved,
                                 const ResolveContext& ctx) {
  if (!raw) return nullptr;
  const nlohmann::json& devices = resolved.at("devices");
  if (raw->is_string()) {
    const std::string& glob = raw->get_ref<const std::string&>();
    if (glob.empty()) throw ScenarioError(at + ": must not be empty");
    for (const auto& d : devices)
      if (fnmatch(glob.c_str(), d.at("name").get_ref<const std::string&>().c_str(), 0) == 0) return *raw;
    throw ScenarioError(at + ": " + raw->dump() + " matches no device name");
  }
  if (!raw->is_object())
    throw ScenarioError(at + ": expected a glob (a string such as \"pi4-*\") or a host selector such as "
                        "{\"site\": \"cell-1\"}, got " + raw->dump());
  const SelectedHosts selected = select_hosts(*raw, at, ctx.platform->info(), resolved.at("server").get<std::string>(),
                                              ctx.platform->file());
  const std::set<std::string> hosts(selected.hosts.begin(), selected.hosts.end());
  nlohmann::json names = nlohmann::json::array();
  for (const auto& d : devices)
    if (hosts.count(d.at("host").get<std::string>())) names.push_back(d.at("name"));
  if (names.empty()) throw ScenarioError(at + ": the selector's hosts run no device of the scenario");
  return names;
}

void fill_attackers(Scenario& s, const nlohmann::json& v) {
  if (!s.attack || v.is_null()) return;
  if (v.is_string()) {
    s.attack->devices = v.get<std::string>();
  } else {
    s.attack->named = v.get<std::vector<std::string>>();
  }
}

PythonClass* strategy_python(Scenario& s) { return s.strategy ? &s.strategy->python : nullptr; }

std::vector<KeySpec> server_rows() {
  const Condition fedopt = when("strategy.kind", {"fedadam", "fedyogi", "fedadagrad"});
  return {
      section_key("strategy",
                  "The server's strategy in local SGD (mode local-sgd): how the round's averaged model delta moves "
                  "the global model, and what devices add to their local steps.")
          .off_when_null("FedAvg: model -= training.server_lr x the weighted mean delta")
          .fills(&Scenario::strategy),
      enum_key("strategy.kind", {"fedavg", "fedavgm", "fedadam", "fedyogi", "fedadagrad", "fedprox", "scaffold",
                                 "feddyn", "qfedavg", "fedper", "fedrep", "fedbn", "ditto", "splitfed", "python"},
               "fedavg = the weighted mean delta at training.server_lr (McMahan et al. 2017); fedavgm = with server "
               "momentum (Hsu et al. 2019); fedadam, fedyogi, fedadagrad = the adaptive server optimisers of Reddi "
               "et al. (ICLR 2021, Algorithm 2), at `server_lr`; fedprox = FedAvg whose devices add the proximal "
               "term mu/2 |w - w_global|^2 to their local loss (Li et al., MLSys 2020); scaffold = control variates correct each "
               "local step by c - c_i, and each upload carries the change of c_i beside the model delta, compressed "
               "alike (the upload doubles), each model c beside it, dense (Karimireddy et al., ICML 2020, option II); "
               "the server steps at training.server_lr; feddyn = each device adds the dynamic regulariser "
               "-<g_i, w> + alpha/2 |w - w_global|^2 to its local loss, g_i its own gradient state, and the server "
               "subtracts the drift of all rounds' deltas (Acar et al., ICLR 2021); qfedavg = q-FFL's fair "
               "aggregation: each update weighted by the device's loss to the power q, the step normalised by an "
               "estimate of the Lipschitz constant, each upload 8 bytes longer for its h_k (Li et al., ICLR 2020, "
               "Algorithm 2). Personalisation (each device's personalised accuracy in "
               "metrics.csv): fedper = the model's head (its last `head_layers` modules) stays on each device and "
               "trains with the rest; only the rest travels (Arivazhagan et al. 2019); fedrep = the same split, the "
               "head trained alone for `head_steps`, then the rest alone (Collins et al., ICML 2021); fedbn = the "
               "normalisation layers stay on each device (Li et al., ICLR 2021); ditto = FedAvg, and each device "
               "also trains a personal model of its own pulled towards the global one by `lambda`, on the same "
               "batches (Li et al., ICML 2021): its steps cost twice the compute. splitfed = split learning (SplitFed "
               "SFLV1, Thapa et al., AAAI 2022): each device runs the model's first `cut_layers` modules and the server "
               "the rest; every local step sends the activations at the cut up and their gradient down (dense fp32), "
               "the server's part computed on its host; after the local steps only the device part's delta goes up "
               "(compressed by `compression`) and the next model comes down as the device part, dense; the server "
               "averages its parts as FedAvg. python = a class of your own with Flower's Strategy methods, named by "
               "`python` (docs/how-to/python-policies.md).")
          .def("fedavg")
          .fills(&Scenario::strategy, &StrategySpec::kind),
      python_class_key("strategy.python",
                       "python: the strategy's class, FILE.py:CLASS (the file relative to the scenario): Flower's "
                       "Strategy methods (aggregate_fit, and optionally configure_fit, evaluate, ...), called on the "
                       "simulated clock; subclass edgetrain.strategy.Strategy.",
                       strategy_python, "strategy.kind")
          .allowed_only_when(when("strategy.kind", {"python"})),
      python_settings_key("strategy.settings", "python: the class's keyword arguments.", strategy_python)
          .allowed_only_when(when("strategy.kind", {"python"})),
      number_key("strategy.server_lr",
                 "FedOpt kinds: the server's step size eta (Flower's defaults: fedadam 0.1, fedyogi 0.01, "
                 "fedadagrad 0.1).")
          .allowed_only_when(fedopt)
          .above(0)
          .def_if(when("strategy.kind", {"fedyogi"}), 0.01)
          .def(0.1)
          .fills(&Scenario::strategy, &StrategySpec::server_lr),
      number_key("strategy.server_momentum", "fedavgm: the server momentum beta (v = beta v + delta).")
          .allowed_only_when(when("strategy.kind", {"fedavgm"}))
          .at_least(0)
          .below(1)
          .def(0.9)
          .fills(&Scenario::strategy, &StrategySpec::server_momentum),
      number_key("strategy.beta1", "FedOpt kinds: the first moment's decay (fedadagrad: 0, as Flower's).")
          .allowed_only_when(fedopt)
          .at_least(0)
          .below(1)
          .def_if(when("strategy.kind", {"fedadagrad"}), 0.0)
          .def(0.9)
          .fills(&Scenario::strategy, &StrategySpec::beta1),
      number_key("strategy.beta2", "fedadam, fedyogi: the second moment's decay.")
          .allowed_only_when(when("strategy.kind", {"fedadam", "fedyogi"}))
          .above(0)
          .below(1)
          .def(0.99)
          .fills(&Scenario::strategy, &StrategySpec::beta2),
      number_key("strategy.tau", "FedOpt kinds: the adaptivity tau added to sqrt(v) (Flower's defaults: fedyogi 1e-3, "
                                 "else 1e-9).")
          .allowed_only_when(fedopt)
          .above(0)
          .def_if(when("strategy.kind", {"fedyogi"}), 1e-3)
          .def(1e-9)
          .fills(&Scenario::strategy, &StrategySpec::tau),
      number_key("strategy.mu", "fedprox: the proximal term's weight mu (Flower's proximal_mu).")
          .allowed_only_when(when("strategy.kind", {"fedprox"}))
          .above(0)
          .def(0.01)
          .fills(&Scenario::strategy, &StrategySpec::mu),
      number_key("strategy.alpha",
                 "feddyn: the dynamic regulariser's weight alpha (Acar et al. tune it among 0.1, 0.01 and 0.001).")
          .allowed_only_when(when("strategy.kind", {"feddyn"}))
          .above(0)
          .limit(1e6, "beyond, a local step diverges")
          .def(0.01)
          .fills(&Scenario::strategy, &StrategySpec::alpha),
      number_key("strategy.q", "qfedavg: the fairness exponent q (0: FedAvg's unweighted mean; Flower's q_param 0.2).")
          .allowed_only_when(when("strategy.kind", {"qfedavg"}))
          .at_least(0)
          .limit(100, "beyond, a loss above 1 weighs infinitely")
          .def(0.2)
          .fills(&Scenario::strategy, &StrategySpec::q),
      number_key("strategy.qffl_lr",
                 "qfedavg: the step 1/L, L the estimate of the loss's Lipschitz constant (Flower's "
                 "qffl_learning_rate 0.1).")
          .allowed_only_when(when("strategy.kind", {"qfedavg"}))
          .above(0)
          .limit(1e6, "a million")
          .def(0.1)
          .fills(&Scenario::strategy, &StrategySpec::qffl_lr),
      integer_key("strategy.head_layers",
                  "fedper, fedrep: the model's last modules that stay on each device (a module: the tensors whose "
                  "names share all but the last part, fc2.weight and fc2.bias).")
          .allowed_only_when(when("strategy.kind", {"fedper", "fedrep"}))
          .at_least(1)
          .limit(1e6, "a million modules")
          .def(1)
          .fills(&Scenario::strategy, &StrategySpec::head_layers),
      integer_key("strategy.head_steps",
                  "fedrep: the first local steps of each update, which train the head alone (the body frozen); the "
                  "rest train the body alone (below training.local_steps).")
          .allowed_only_when(when("strategy.kind", {"fedrep"}))
          .at_least(1)
          .limit(1e6, "a million steps")
          .null_default("half of training.local_steps, as PFLlib's equal head and body epochs")
          .fills(&Scenario::strategy, &StrategySpec::head_steps),
      integer_key("strategy.cut_layers",
                  "splitfed: the model's first modules that run on each device (a module: the tensors whose names "
                  "share all but the last part); the server runs the rest.")
          .allowed_only_when(when("strategy.kind", {"splitfed"}))
          .at_least(1)
          .limit(1e6, "a million modules")
          .def(1)
          .fills(&Scenario::strategy, &StrategySpec::cut_layers),
      number_key("strategy.lambda", "ditto: the weight of the personal model's proximal term lambda/2 |v - w_global|^2.")
          .allowed_only_when(when("strategy.kind", {"ditto"}))
          .at_least(0)
          .limit(1e6, "beyond, a personal step diverges")
          .def(0.1)
          .fills(&Scenario::strategy, &StrategySpec::lambda),
      integer_key("strategy.personal_test_samples",
                  "Personalisation: the test samples each device's personalised model is evaluated on, drawn from the "
                  "test set in the proportions of the classes the device has trained on; with fedavg and qfedavg, the "
                  "global model evaluated so on each device (the baseline personalisation is measured against, and "
                  "q-FFL's fairness: the worst devices' accuracy).")
          .allowed_only_when(when("strategy.kind", {"fedavg", "qfedavg", "fedper", "fedrep", "fedbn", "ditto"}))
          .at_least(1)
          .limit(1e5, "a hundred thousand samples")
          .def_if(when("strategy.kind", {"fedper", "fedrep", "fedbn", "ditto"}), 100)
          .null_default("fedavg, qfedavg: no evaluation per device")
          .fills(&Scenario::strategy, &StrategySpec::personal_test_samples),
  };
}

std::vector<KeySpec> defence_rows() {
  return {
      section_key("defence",
                  "A robust aggregation rule in place of the round's weighted mean (synchronous rounds of a flat "
                  "topology): the aggregator keeps each decoded update of the round, so it needs them all before it "
                  "can aggregate.")
          .off_when_null("the weighted mean")
          .fills(&Scenario::defence),
      enum_key("defence.kind", {"median", "trimmed-mean", "krum", "multikrum", "bulyan", "norm-bound"},
               "median = the coordinate-wise median (Yin et al. 2018, Flower's FedMedian); trimmed-mean = the "
               "coordinate-wise mean without the `trim` share at each end (FedTrimmedAvg); krum = the update with "
               "the smallest sum of squared distances to its n - f - 2 nearest (Blanchard et al. 2017); multikrum = "
               "the mean of the m best by that score; bulyan = Krum chooses n - 2f, then per coordinate the mean "
               "of the n - 4f closest to their median (El Mhamdi et al. 2018); norm-bound = each update scaled to L2 "
               "norm at most `norm_bound`, then the weighted mean (Sun et al. 2019). All but norm-bound weigh "
               "updates alike.")
          .required()
          .fills(&Scenario::defence, &DefenceSpec::kind),
      integer_key("defence.byzantine",
                  "f: the attackers a round is assumed to hold (krum, multikrum, bulyan).")
          .allowed_only_when(when("defence.kind", {"krum", "multikrum", "bulyan"}))
          .at_least(0)
          .limit(1e6, "a million devices")
          .null_default("the attackers' share of the devices times the round's updates, rounded up (0 without `attack`)")
          .fills(&Scenario::defence, &DefenceSpec::byzantine),
      number_key("defence.trim", "trimmed-mean: the share of values cut at each end of each coordinate.")
          .allowed_only_when(when("defence.kind", {"trimmed-mean"}))
          .at_least(0)
          .below(0.5)
          .def(0.2)
          .fills(&Scenario::defence, &DefenceSpec::trim),
      integer_key("defence.multikrum_m", "multikrum: the updates averaged.")
          .allowed_only_when(when("defence.kind", {"multikrum"}))
          .at_least(1)
          .limit(1e6, "a million devices")
          .null_default("n - f")
          .fills(&Scenario::defence, &DefenceSpec::multikrum_m),
      number_key("defence.norm_bound", "norm-bound: the largest L2 norm an update keeps.")
          .allowed_only_when(when("defence.kind", {"norm-bound"}))
          .above(0)
          .required_if(when("defence.kind", {"norm-bound"}))
          .fills(&Scenario::defence, &DefenceSpec::norm_bound),
  };
}

std::vector<KeySpec> attack_rows() {
  std::vector<KeySpec> rows{
      section_key("attack",
                  "Attackers among the devices (real training): what they do to their updates (sign-flip, scale, "
                  "noise) or to their data (label-flip, backdoor).")
          .off_when_null("every device is honest")
          .fills(&Scenario::attack),
      enum_key("attack.kind", {"sign-flip", "scale", "noise", "label-flip", "backdoor"},
               "sign-flip = the update times -scale; scale = times scale (model replacement, Bagdasaryan et al. "
               "2020); noise = a Gaussian vector of standard deviation `stddev` in place of the update; label-flip = "
               "trained on labels c -> classes - 1 - c; backdoor = a share `poison_fraction` of the attacker's "
               "samples carry a trigger (a 3x3 patch of the brightest value in each image's bottom-right corner) "
               "and the label `target_class`; its attack success rate (test samples of other classes, stamped, "
               "classified as the target) is in metrics.csv and summary.json.")
          .required()
          .fills(&Scenario::attack, &AttackSpec::kind),
      number_key("attack.fraction", "The share of devices that attack, a seeded draw of round(fraction x devices).")
          .above(0)
          .at_most(1)
          .null_default("not given: `devices` says who")
          .fills(&Scenario::attack, &AttackSpec::fraction),
      string_key("attack.devices",
                 "Or the devices whose names match this glob (fnmatch: `*`, `?`, `[...]`), e.g. a class's `pi4-*`; or "
                 "a host selector as `devices` takes, e.g. {\"site\": \"cell-1\"} or {\"class\": \"budget\"}: its "
                 "hosts' devices, written out by name in scenario.json.")
          .null_default("not given: `fraction` says how many")
          .resolved_by(resolve_attackers)
          .fills_root<Scenario>(fill_attackers),
      number_key("attack.scale", "sign-flip, scale: the factor (sign-flip sends -scale x the update).")
          .allowed_only_when(when("attack.kind", {"sign-flip", "scale"}))
          .above(0)
          .limit(1e6, "beyond, the model is no longer finite after one round")
          .def_if(when("attack.kind", {"scale"}), 10.0)
          .def(1.0)
          .fills(&Scenario::attack, &AttackSpec::scale),
      number_key("attack.stddev", "noise: the standard deviation of each coordinate.")
          .allowed_only_when(when("attack.kind", {"noise"}))
          .above(0)
          .limit(1e6, "beyond, the model is no longer finite after one round")
          .def(1.0)
          .fills(&Scenario::attack, &AttackSpec::stddev),
      integer_key("attack.target_class", "backdoor: the label a stamped sample is given.")
          .allowed_only_when(when("attack.kind", {"backdoor"}))
          .at_least(0)
          .limit(1e6, "a million classes")
          .def(0)
          .fills(&Scenario::attack, &AttackSpec::target_class),
      number_key("attack.poison_fraction", "backdoor: the share of each attacker's samples stamped.")
          .allowed_only_when(when("attack.kind", {"backdoor"}))
          .above(0)
          .at_most(1)
          .def(0.5)
          .fills(&Scenario::attack, &AttackSpec::poison_fraction),
  };
  for (KeySpec& k : rows)
    if (k.path == "attack.devices") k.type_doc = "glob or host selector";  // the table's type column
  return rows;
}

// Where the algorithms apply: the flat topology's aggregator (a hierarchy's sites and gossip have rules
// of their own), updates it sees one by one (not secure aggregation's sum).
void check_where(const nlohmann::json& r, const std::string& section, const std::string& what) {
  if (!is_given(r, section.c_str())) return;
  const std::string at = section + ": ";
  if (r.at("topology").at("kind") != "flat")
    throw ScenarioError(at + what + " on the flat topology's aggregator only (a hierarchy's sites and gossip "
                        "aggregate by rules of their own)");
  if (section != "attack" && is_given(r.at("privacy"), "secure_aggregation"))
    throw ScenarioError(at + "not with privacy.secure_aggregation (the aggregator sees only the round's sum)");
}

// Personalisation: the parts that stay on the devices are the trained model's (not a catalogued model's costs);
// only the shared part travels down, dense; fedrep's head steps leave some for the body.
void check_personal(const nlohmann::json& r) {
  const std::string kind = r.at("strategy").at("kind").get<std::string>();
  const std::string at = "strategy.kind: " + kind + " ";
  if (is_given(r.at("model"), "cost_as"))
    throw ScenarioError(at + "not with model.cost_as (what stays on the devices is the trained model's own layers)");
  if (kind != "ditto" && is_given(r.at("compression"), "downlink"))
    throw ScenarioError(at + "not with compression.downlink (only the shared layers go down, dense)");
  if (kind == "fedrep") {
    const int64_t steps = r.at("training").at("local_steps").get<int64_t>();
    const auto& head = r.at("strategy").at("head_steps");
    if (steps < 2)
      throw ScenarioError("strategy.kind: fedrep needs training.local_steps of at least 2 (head steps, then body steps)");
    if (!head.is_null() && head.get<int64_t>() >= steps)
      throw ScenarioError("strategy.head_steps: " + head.dump() + " leaves no step of the " + std::to_string(steps) +
                          " (training.local_steps) for the body");
  }
}

// Split learning: the server trains its part of every device's model from the activations it receives, so
// what protects, compresses or attacks a whole update has nothing whole to act on; the round averages the
// server's parts, and what stays on the server is the trained model's own layers.
void check_split(const nlohmann::json& r) {
  const std::string at = "strategy.kind: splitfed ";
  const auto& t = r.at("training");
  if (applies_on_arrival(t))
    throw ScenarioError(at + "needs rounds (training.aggregation sync): the server averages its parts of the "
                        "devices' models at each round's end");
  if (is_given(r.at("compression"), "downlink"))
    throw ScenarioError(at + "not with compression.downlink (only the device's part goes down, dense)");
  if (is_given(r.at("privacy"), "dp"))
    throw ScenarioError(at + "not with privacy.dp (the server trains its part on the devices' activations, which "
                        "no device-side noise covers)");
  if (is_given(r, "attack"))
    throw ScenarioError(at + "not with attack (the server computes its part of each update)");
  if (is_given(r, "defence"))
    throw ScenarioError(at + "not with defence (the server computes its part of each update itself)");
  if (t.at("compute") != "timing-only" && is_given(r.at("model"), "cost_as"))
    throw ScenarioError(at + "not with model.cost_as in real training (the cut splits the trained model's own "
                        "layers); cut a catalogued model in a timing-only run");
  if (is_given(r, "population"))
    throw ScenarioError(at + "not with a population (a device's exchanges with the server are per host)");
}

// A Python strategy aggregates a round's updates as it likes: it needs the round, and nothing whose guarantee
// rests on the built-in mean (a privacy budget's sensitivity, a robust rule in its place).
void check_python(const nlohmann::json& r) {
  const std::string at = "strategy.kind: python ";
  if (applies_on_arrival(r.at("training")))
    throw ScenarioError(at + "needs rounds (training.aggregation sync): aggregate_fit takes a round's updates");
  if (is_given(r.at("privacy"), "dp"))
    throw ScenarioError(at + "not with privacy.dp (the budget is calibrated to the built-in mean's sensitivity, "
                        "which your aggregate_fit need not keep)");
  if (is_given(r, "defence"))
    throw ScenarioError(at + "not with a defence (write the robust rule in aggregate_fit)");
}

}  // namespace

std::vector<KeySpec> strategy_rows() {
  std::vector<KeySpec> rows;
  for (const auto& part : {server_rows(), defence_rows(), attack_rows()}) rows.insert(rows.end(), part.begin(), part.end());
  return rows;
}

std::vector<Rule> strategy_rules() {
  return {
      {"strategy",
       "Mode local-sgd (the strategies move the model by the devices' model deltas), a flat topology, not with "
       "secure aggregation; training.momentum 0 (the server's momentum is the strategy's).",
       [](const nlohmann::json& r) {
         if (!is_given(r, "strategy")) return;
         const auto& t = r.at("training");
         if (t.at("mode") != "local-sgd")
           throw ScenarioError("strategy: needs training.mode local-sgd (a strategy moves the model by the devices' "
                               "model deltas), got " + t.at("mode").dump());
         check_where(r, "strategy", "a strategy");
         const auto& kind = r.at("strategy").at("kind");
         if ((kind == "scaffold" || kind == "feddyn" || kind == "qfedavg") && applies_on_arrival(t))
           throw ScenarioError("strategy.kind: " + kind.get<std::string>() +
                               " needs rounds (training.aggregation sync): its server state moves by each round's "
                               "updates");
         if (kind == "scaffold") {
           if (is_given(r.at("privacy"), "dp") || is_given(r.at("privacy"), "secure_aggregation"))
             throw ScenarioError("strategy.kind: scaffold not with privacy (its control variates would go unclipped and "
                                 "unmasked beside the protected update)");
         }
         if (kind == "qfedavg") {
           if (is_given(r.at("privacy"), "dp"))
             throw ScenarioError("strategy.kind: qfedavg not with privacy.dp (its loss-weighted updates and h_k would "
                                 "escape the clip the noise is calibrated to)");
           if (is_given(r, "defence"))
             throw ScenarioError("strategy.kind: qfedavg not with a defence (q-FFL's normalised sum is its own "
                                 "aggregation rule)");
         }
         if (kind == "python") check_python(r);
         if (kind == "fedper" || kind == "fedrep" || kind == "fedbn" || kind == "ditto") check_personal(r);
         if (kind == "splitfed") check_split(r);
         if (kind != "fedavg" && kind != "fedprox" && kind != "scaffold" && kind != "splitfed" && t.at("momentum") != 0.0)
           throw ScenarioError("strategy.kind: " + kind.get<std::string>() +
                               " has a server optimiser of its own; set training.momentum to 0");
       }},
      {"defence",
       "Synchronous rounds (a robust rule needs the round's updates together), a flat topology, not with secure "
       "aggregation or central differential privacy (its noise is calibrated to the mean).",
       [](const nlohmann::json& r) {
         if (!is_given(r, "defence")) return;
         if (applies_on_arrival(r.at("training")))
           throw ScenarioError("defence: needs synchronous rounds (a robust rule compares the round's updates); "
                               "updates applied on arrival have none to compare");
         check_where(r, "defence", "a defence");
         const auto& privacy = r.at("privacy");
         if (is_given(privacy, "dp") && privacy.at("dp").at("placement") == "central")
           throw ScenarioError("defence: not with privacy.dp placement central (its noise is calibrated to the "
                               "weighted mean's sensitivity); place the noise on the devices");
       }},
      {"attack",
       "Real training (an attack changes what is learnt, not sizes); exactly one of `fraction` and `devices`; a flat "
       "topology.",
       [](const nlohmann::json& r) {
         if (!is_given(r, "attack")) return;
         if (r.at("training").at("compute") == "timing-only")
           throw ScenarioError("attack: needs training.compute real (an attack changes what is learnt; timing-only "
                               "runs learn nothing)");
         const auto& a = r.at("attack");
         const bool fraction = is_given(a, "fraction"), devices = is_given(a, "devices");
         if (fraction == devices)
           throw ScenarioError(std::string("attack: give exactly one of fraction and devices") +
                               (fraction ? " (both are given)" : " (which devices attack?)"));
         check_where(r, "attack", "an attack");
       }},
  };
}

}  // namespace edgetrain::scenario::keys
