// See training.hpp.
#include "scenario/keys/training.hpp"

#include <cstdint>

#include "compute/devices.hpp"
#include "scenario/error.hpp"
#include "scenario/keys/faults.hpp"
#include "scenario/keys/python_class.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {

namespace {

PythonClass* deadline_python(Scenario& s) { return &s.training.deadline_policy; }

std::vector<std::string> profile_choices() {
  std::vector<std::string> names;
  for (const compute::DeviceClass& d : compute::device_classes()) names.push_back(d.profile.name);
  names.emplace_back("host");
  return names;
}

}  // namespace

std::vector<KeySpec> compute_rows() {
  return {
      enum_key("training.compute", {"real", "timing-only"},
               "real = every step trains the model with LibTorch on the data set; timing-only = no tensors and no "
               "data: steps cost their FLOPs and messages the sizes the compressor would produce, so large fleets "
               "and catalogue models (`model.name`) can be planned. `dataset` and `eval` are then optional and "
               "unused, and `stop.target_accuracy` is refused (no accuracy is measured).")
          .def("real")
          .fills(&Scenario::training, &TrainingSpec::compute),
      enum_key("training.compute_profile", profile_choices(),
               "The compute model's device profile (docs/explanation/compute-model.md): each step then costs the "
               "roofline time of the model's layers on that device class (`edgetrain cost`), whatever the "
               "host's speed; `host` = each device host's `compute_profile` property names its class (a fleet "
               "class's `properties`).")
          .null_default("none: a step costs its training FLOPs / the host's speed")
          .fills(&Scenario::training, &TrainingSpec::compute_profile),
      path_key("training.compute_profile_file", PathKind::File,
               "A profile file (`edgetrain calibrate-compute -o FILE`) that every device's steps are charged by, "
               "as `training.compute_profile` charges a device class's.")
          .null_default("none")
          .fills(&Scenario::training, &TrainingSpec::compute_profile_file),
  };
}

namespace {

constexpr const char* kWhyBatch = "a batch is held in memory at once; far beyond edge training batches";

// What every step does: the mode, the batch, the optimiser.
std::vector<KeySpec> step_rows() {
  return {
      enum_key("training.mode", {"sync", "scadles", "async", "local-sgd"},
               "Training strategy: sync = synchronous data-parallel SGD with a fixed batch per device; "
               "scadles = each device's batch follows its stream rate, aggregation weighted by batch, "
               "learning rate scaled linearly with the global batch; async = asynchronous parameter server: "
               "each device pulls the model, computes a gradient and pushes it, the server applies every push "
               "on arrival; local-sgd = FedAvg-style: each device runs `training.local_steps` SGD steps at "
               "`training.lr` on its own copy of the pulled model, then pushes the model delta, and the server "
               "aggregates the deltas (`training.aggregation`).")
          .def("sync")
          .fills(&Scenario::training, &TrainingSpec::mode),
      integer_key("training.batch_size", "Samples per device per step.")
          .at_least(1)
          .limit(1e6, kWhyBatch)
          .def(32)
          .fills(&Scenario::training, &TrainingSpec::batch_size),
      number_key("training.lr", "Learning rate.").above(0).def(0.05).fills(&Scenario::training, &TrainingSpec::lr),
      number_key("training.momentum", "SGD momentum.")
          .at_least(0)
          .below(1)
          .def(0.0)
          .fills(&Scenario::training, &TrainingSpec::momentum),
      number_key("training.weight_decay", "L2 weight decay.")
          .at_least(0)
          .def(0.0)
          .fills(&Scenario::training, &TrainingSpec::weight_decay),
  };
}

// ScaDLES (mode scadles): batches that follow the stream rates, weights, learning rate scaling,
// data injection.
std::vector<KeySpec> scadles_rows() {
  const Condition scadles = when("training.mode", {"scadles"});
  return {
      quantity_key("training.window_s", Unit::Seconds,
                   "ScaDLES: device i's batch is clip(round(rate_i x window_s), batch_min, batch_max).")
          .only_when(scadles)
          .above(0)
          .def(1.0)
          .fills(&Scenario::training, &TrainingSpec::window_s),
      integer_key("training.batch_min", "ScaDLES: smallest batch per device.")
          .only_when(scadles)
          .at_least(1)
          .limit(1e6, kWhyBatch)
          .def(8)
          .fills(&Scenario::training, &TrainingSpec::batch_min),
      integer_key("training.batch_max", "ScaDLES: largest batch per device.")
          .only_when(scadles)
          .at_least(1)
          .limit(1e6, kWhyBatch)
          .def(1024)
          .fills(&Scenario::training, &TrainingSpec::batch_max),
      integer_key("training.base_global_batch",
                  "ScaDLES: the global batch at which the learning rate is `training.lr`; 0 means the same as "
                  "null.")
          .only_when(scadles)
          .at_least(0)
          .limit(1e12, "a million devices at the largest batch")
          .null_default("`training.batch_size` times the number of devices")
          .fills(&Scenario::training, &TrainingSpec::base_global_batch),
      enum_key("training.weighting", {"batch", "uniform"},
               "ScaDLES aggregation weights: batch = b_i / sum of b; uniform = 1 / number of devices.")
          .only_when(scadles)
          .def("batch")
          .fills(&Scenario::training, &TrainingSpec::weighting),
      enum_key("training.lr_scaling", {"linear", "none"},
               "ScaDLES learning rate: linear = `training.lr` x global batch / `base_global_batch`; none = "
               "`training.lr`.")
          .only_when(scadles)
          .def("linear")
          .fills(&Scenario::training, &TrainingSpec::lr_scaling),
      section_key("training.injection",
                  "ScaDLES data injection: at each step some devices share part of their batch with the others.")
          .only_when(scadles)
          .null_default("no injection")
          .fills(&Scenario::training, &TrainingSpec::injection),
      number_key("training.injection.alpha", "Fraction of devices that share at each step.")
          .above(0)
          .at_most(1)
          .required()
          .fills(&Scenario::training, &TrainingSpec::injection, &InjectionSpec::alpha),
      number_key("training.injection.beta", "Fraction of its batch a sharing device shares.")
          .above(0)
          .at_most(1)
          .required()
          .fills(&Scenario::training, &TrainingSpec::injection, &InjectionSpec::beta),

  };
}

// Pushes applied on arrival (mode async, local-sgd with aggregation async): staleness, SSP,
// FedBuff's buffer, start jitter.
std::vector<KeySpec> on_arrival_rows() {
  // Mode async, and local-sgd (its aggregation async; a Condition looks at one key, so the
  // descriptions say so).
  const Condition async_pushes = when("training.mode", {"async", "local-sgd"});
  return {
      enum_key("training.staleness_lr", {"none", "inverse", "adacomp"},
               "Async, and local-sgd with aggregation async: step size of a push of staleness d (updates applied since "
               "its pull): none = unchanged; "
               "inverse = divided by max(1, d); adacomp = coordinate k divided by max(1, sigma_k), the number "
               "of those d updates that touched k.")
          .only_when(async_pushes)
          .def("none")
          .fills(&Scenario::training, &TrainingSpec::staleness_lr),
      integer_key("training.max_staleness",
                  "Async, and local-sgd with aggregation async: with staleness_policy drop, a push staler than this "
                  "(versions applied since its pull) is dropped (counted in stale_drops), not applied; with hold, "
                  "the most pushes a device may be ahead of the slowest device that is on.")
          .only_when(async_pushes)
          .at_least(0)
          .limit(1e12, kWhyCount)
          .no_limit()
          .fills(&Scenario::training, &TrainingSpec::max_staleness),
      enum_key("training.staleness_policy", {"drop", "hold"},
               "Async, and local-sgd with aggregation async, with max_staleness: drop = a staler push is dropped; "
               "hold = stale synchronous parallel (Ho et al. 2013): a device more than max_staleness pushes ahead "
               "of the slowest device that is on waits for its model until the slowest catches up (counted in "
               "holds and held_s), and nothing is dropped.")
          .allowed_only_when(async_pushes)
          .def("drop")
          .fills(&Scenario::training, &TrainingSpec::staleness_policy),
      integer_key("training.buffer_size",
                  "Async, and local-sgd with aggregation async: buffered asynchrony (FedBuff, Nguyen et al. 2022): "
                  "the server adds each push, scaled by staleness_lr, to a buffer and applies the buffer's average "
                  "every buffer_size pushes as one model version; 1 = each push applied on arrival.")
          .allowed_only_when(async_pushes)
          .at_least(1)
          .limit(1e6, kWhyCount)
          .def(1)
          .fills(&Scenario::training, &TrainingSpec::buffer_size),
      quantity_key("training.start_jitter_s", Unit::Seconds,
                   "Async, and local-sgd with aggregation async: each device starts after a seeded uniform delay "
                   "in [0, start_jitter_s], so identical devices do not run in lockstep (real fleets never start "
                   "together).")
          .only_when(async_pushes)
          .at_least(0)
          .def(0.0)
          .fills(&Scenario::training, &TrainingSpec::start_jitter_s),
      integer_key("training.staleness_history",
                  "Async, and local-sgd with aggregation async; with staleness_lr adacomp: index sets kept for the "
                  "last this many updates (older ones count as touching every coordinate).")
          .only_when(async_pushes)
          .at_least(1)
          .limit(100000, "each kept index set may be as large as the model")
          .def(1000)
          .fills(&Scenario::training, &TrainingSpec::staleness_history),
  };
}

// Local SGD (mode local-sgd), and the round timeout of the synchronous modes.
std::vector<KeySpec> local_sgd_rows() {
  const Condition local_sgd = when("training.mode", {"local-sgd"});
  return {
      integer_key("training.local_steps",
                  "Local SGD: SGD steps each device runs on its model copy between a pull and its push.")
          .only_when(local_sgd)
          .at_least(1)
          .limit(1e6, kWhyCount)
          .def(5)
          .fills(&Scenario::training, &TrainingSpec::local_steps),
      enum_key("training.aggregation", {"sync", "async"},
               "Local SGD: sync = rounds like mode sync, deltas weighted by samples; async = each delta applied on "
               "arrival like mode async.")
          .only_when(local_sgd)
          .def("sync")
          .fills(&Scenario::training, &TrainingSpec::aggregation),
      number_key("training.server_lr",
                 "Local SGD: server step on the aggregated delta (model += server_lr x delta); 1 = plain FedAvg.")
          .only_when(local_sgd)
          .above(0)
          .def(1.0)
          .fills(&Scenario::training, &TrainingSpec::server_lr),
      quantity_key("training.round_timeout_s", Unit::Seconds,
                   "Synchronous rounds (sync, scadles, local-sgd with aggregation sync): the server aggregates what "
                   "arrived within this long after sending the model, and counts the missing. Required with "
                   "`faults` device or link entries.")
          .only_when(when("training.mode", {"sync", "scadles", "local-sgd"}))
          .above(0)
          .null_default("wait for every device")
          .fills(&Scenario::training, &TrainingSpec::round_timeout_s),
      enum_key("training.deadline", {"fixed", "fedbalancer", "python"},
               "Synchronous rounds: when a round stops waiting. fixed = at training.round_timeout_s; fedbalancer = "
               "at a deadline predicted from the round times seen so far (FedBalancer, Shin et al., MobiSys 2022): "
               "among the picked devices' last round times t_i, the D that maximises |{i : t_i <= D}| / D, the "
               "updates expected per second of round (never past round_timeout_s; until a picked device has a "
               "round time, round_timeout_s alone); python = a class of your own predicts it, named by `deadline_python` "
               "(never past round_timeout_s either; docs/how-to/python-policies.md).")
          .allowed_only_when(when("training.mode", {"sync", "scadles", "local-sgd"}))
          .def("fixed")
          .fills(&Scenario::training, &TrainingSpec::deadline),
      python_class_key("training.deadline_python",
                       "deadline python: the class, FILE.py:CLASS (the file relative to the scenario), with a method "
                       "deadline(server_round, picked) and optionally observed(observations); subclass "
                       "edgetrain.policies.DeadlinePolicy.",
                       deadline_python, "training.deadline")
          .allowed_only_when(when("training.deadline", {"python"})),
      python_settings_key("training.deadline_settings", "deadline python: the class's keyword arguments.", deadline_python)
          .allowed_only_when(when("training.deadline", {"python"})),
  };
}

}  // namespace

std::vector<KeySpec> training_rows() {
  std::vector<KeySpec> rows;
  for (const auto& part : {step_rows(), scadles_rows(), on_arrival_rows(), local_sgd_rows()}) {
    rows.insert(rows.end(), part.begin(), part.end());
  }
  return rows;
}

std::vector<Rule> training_rules() {
  return {
      {"training.compute_profile_file", "Not with `training.compute_profile`: a step has one profile.",
       [](const nlohmann::json& r) {
         const auto& t = r.at("training");
         if (t.at("compute_profile").is_null() || t.at("compute_profile_file").is_null()) return;
         throw ScenarioError("training.compute_profile_file: not with training.compute_profile (" +
                             t.at("compute_profile").get<std::string>() + "): a step is charged by one profile");
       }},
      {"training.mode", "`scadles` needs a stream for every device (a global `stream`, or each device's own).",
       [](const nlohmann::json& r) {
         if (r.at("training").at("mode") != "scadles") return;
         const auto& devices = r.at("devices");
         for (size_t i = 0; i < devices.size(); ++i) {
           if (devices[i].at("stream").is_null()) {
             const std::string at = entry_at("devices", i);
             throw ScenarioError("training.mode: scadles needs a stream for every device (" + at +
                                 " has none: add a global stream section or " + at + ".stream)");
           }
         }
       }},
      {"training.batch_min", "Must be <= `training.batch_max`.",
       [](const nlohmann::json& r) {
         const auto& t = r.at("training");
         if (!t.contains("batch_min") || !t.contains("batch_max")) return;  // not scadles
         const auto lo = t.at("batch_min").get<int64_t>(), hi = t.at("batch_max").get<int64_t>();
         if (lo > hi) {
           throw ScenarioError("training.batch_min: must be <= training.batch_max (" + std::to_string(hi) + "), got " +
                               std::to_string(lo));
         }
       }},
      {"training.round_timeout_s",
       "Required by the synchronous modes (sync, scadles, local-sgd with aggregation sync) when `faults` has device "
       "or link entries: otherwise a round would wait for a device that is off.",
       [](const nlohmann::json& r) {
         if (fault_entries(r, "devices").empty() && fault_entries(r, "links").empty()) return;
         const auto& t = r.at("training");
         if (applies_on_arrival(t)) return;
         const auto& mode = t.at("mode").get_ref<const std::string&>();
         const std::string which = mode == "local-sgd" ? "mode local-sgd with aggregation sync" : "mode " + mode;
         if (!t.at("round_timeout_s").is_null()) return;
         throw ScenarioError("training.round_timeout_s: required in " + which +
                             " when faults has device or link entries (without it a round waits for every device, "
                             "however long one is off or cut off)");
       }},
      {"training.buffer_size",
       "`buffer_size` other than 1 and `staleness_policy` hold need pushes applied on arrival (local-sgd with "
       "aggregation async); hold needs `max_staleness`.",
       [](const nlohmann::json& r) {
         const auto& t = r.at("training");
         if (!t.contains("buffer_size")) return;  // not async
         const bool buffered = t.at("buffer_size") != 1, hold = t.at("staleness_policy") == "hold";
         if (!applies_on_arrival(t)) {  // local-sgd with aggregation sync (buffer_size is async's)
           if (buffered) {
             throw ScenarioError(
                 "training.buffer_size: needs pushes applied on arrival (local-sgd with aggregation async)");
           }
           if (hold) {
             throw ScenarioError(
                 "training.staleness_policy: hold needs pushes applied on arrival (local-sgd with aggregation async)");
           }
           return;
         }
         if (hold && t.at("max_staleness").is_null()) {
           throw ScenarioError("training.staleness_policy: hold needs training.max_staleness (the bound it holds to)");
         }
       }},
      {"training.deadline",
       "`fedbalancer` needs synchronous rounds (not local-sgd with aggregation async) and no data injection.",
       [](const nlohmann::json& r) {
         const auto& t = r.at("training");
         if (!t.contains("deadline") || t.at("deadline") != "fedbalancer") return;
         if (applies_on_arrival(t))
           throw ScenarioError("training.deadline: fedbalancer needs rounds (training.aggregation sync): updates "
                               "applied on arrival have no round to close");
         if (is_given(t, "injection"))
           throw ScenarioError("training.deadline: fedbalancer not with training.injection (a round that closes "
                               "without some devices would lose the samples handed to them)");
       }},
      {"training.injection",
       "Not with `training.round_timeout_s`: a round that closes without some devices would "
       "lose the samples handed to them.",
       [](const nlohmann::json& r) {
         const auto& t = r.at("training");
         if (!is_given(t, "injection") || !is_given(t, "round_timeout_s")) return;
         throw ScenarioError(
             "training.injection: not supported with training.round_timeout_s (a round that closes without some "
             "devices would lose the samples handed to them); set one of them to null");
       }},
  };
}

}  // namespace edgetrain::scenario::keys
