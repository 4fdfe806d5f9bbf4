// See privacy.hpp.
#include "scenario/keys/privacy.hpp"

#include "scenario/error.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> privacy_rows() {
  return {
      section_key("privacy",
                  "Privacy mechanisms on the devices' updates: differential privacy (`dp`) and secure aggregation "
                  "(`secure_aggregation`).")
          .null_default("none: updates go as trained (and compressed)"),
      section_key("privacy.dp",
                  "Client-level differential privacy (DP-FedAvg, McMahan et al., ICLR 2018): each device clips its "
                  "update to L2 norm `clip`; Gaussian noise of standard deviation noise_multiplier x clip is added to "
                  "a round's sum; a Renyi-DP accountant gives epsilon after every round.")
          .off_when_null("no differential privacy")
          .fills(&Scenario::privacy, &PrivacySpec::dp),
      enum_key("privacy.dp.placement", {"central", "distributed", "local"},
               "Who adds the noise: central = the aggregator, to the sum of the decoded, clipped updates; "
               "distributed = each device, a share of standard deviation noise_multiplier x clip / sqrt(K) (K: the "
               "updates a round aggregates) so that the sum carries the whole noise; local = each device, the "
               "whole noise.")
          .def("central")
          .fills(&Scenario::privacy, &PrivacySpec::dp, &DpSpec::placement),
      number_key("privacy.dp.clip", "The L2 norm each device's update is clipped to: one device's sensitivity.")
          .above(0)
          .def(1.0)
          .fills(&Scenario::privacy, &PrivacySpec::dp, &DpSpec::clip),
      number_key("privacy.dp.noise_multiplier",
                 "z: the Gaussian noise on a round's sum has standard deviation z x clip.")
          .above(0)
          .at_most(100)  // beyond, the noise drowns any update, and the accountant's series grows with z
          .def(1.0)
          .fills(&Scenario::privacy, &PrivacySpec::dp, &DpSpec::noise_multiplier),
      number_key("privacy.dp.delta", "The delta of the (epsilon, delta) guarantee the accountant reports.")
          .above(0)
          .below(1)
          .def(1e-5)
          .fills(&Scenario::privacy, &PrivacySpec::dp, &DpSpec::delta),
      enum_key("privacy.dp.order", {"clip_compress_noise", "clip_noise_compress"},
               "Order with compression: clip_compress_noise = the clipped update is compressed and the noise added "
               "to what is decoded (central: at the aggregator; on devices the noisy update then goes dense); "
               "clip_noise_compress = devices add their noise before compressing (local; distributed only "
               "without compression, which would drop part of each device's share of the noise).")
          .def_if(when("privacy.dp.placement", {"local"}), "clip_noise_compress")
          .def("clip_compress_noise")
          .fills(&Scenario::privacy, &PrivacySpec::dp, &DpSpec::order),
      enum_key("privacy.dp.sampling", {"fixed_size", "poisson"},
               "How training.selection random draws a round, and so what the accountant assumes: fixed_size = "
               "K of N without replacement (Wang et al., AISTATS 2019); poisson = each device in independently "
               "with probability K/N, so a round's size varies (Mironov et al. 2019, as Opacus and TensorFlow "
               "Privacy draw and account). Not with secure aggregation or population host slots, which need a "
               "round's size in advance.")
          .def("fixed_size")
          .fills(&Scenario::privacy, &PrivacySpec::dp, &DpSpec::sampling),
      section_key("privacy.secure_aggregation",
                  "Secure aggregation: each round, the selected devices quantise their updates to the field "
                  "Z_{2^field_bits}, mask them and run the protocol of Bonawitz et al. (CCS 2017) through the "
                  "simulated network, so that the aggregator learns only their sum.")
          .off_when_null("none: the aggregator sees every update")
          .fills(&Scenario::privacy, &PrivacySpec::secure_aggregation),
      enum_key("privacy.secure_aggregation.kind", {"secagg", "secagg+"},
               "secagg = every participant masks with and shares its secrets among all others; secagg+ = only "
               "with its neighbours on a k-regular graph (Bell et al., CCS 2020).")
          .def("secagg")
          .fills(&Scenario::privacy, &PrivacySpec::secure_aggregation, &SecureAggregationSpec::kind),
      integer_key("privacy.secure_aggregation.threshold",
                  "t: the shares that recover a device's secrets; a round whose live clients fall below it fails. "
                  "secagg: out of the round's participants; secagg+: out of a neighbourhood (the neighbours and "
                  "the device itself).")
          .at_least(2)
          .limit(1e6, "a million devices")
          .null_default("a strict majority: floor(n / 2) + 1 (secagg+: of the neighbourhood, k + 1)")
          .fills(&Scenario::privacy, &PrivacySpec::secure_aggregation, &SecureAggregationSpec::threshold),
      integer_key("privacy.secure_aggregation.neighbours",
                  "secagg+: k, each participant's neighbours on the masking graph (a Harary graph on a seeded "
                  "permutation).")
          .allowed_only_when(when("privacy.secure_aggregation.kind", {"secagg+"}))
          .at_least(1)
          .limit(1e6, "a million devices")
          .null_default("2 ceil(1.5 log2 n), at most n - 1")
          .fills(&Scenario::privacy, &PrivacySpec::secure_aggregation, &SecureAggregationSpec::neighbours),
      integer_key("privacy.secure_aggregation.field_bits",
                  "b: updates are summed in Z_{2^b}; each value gets floor((2^b - 1) / 2n) levels per unit of range.")
          .at_least(2)
          .limit(32, "one field element per 32-bit word")
          .def(32)
          .fills(&Scenario::privacy, &PrivacySpec::secure_aggregation, &SecureAggregationSpec::field_bits),
      number_key("privacy.secure_aggregation.range",
                 "Each coordinate of a device's input (its update, with its noise under DP) is clipped to [-range, "
                 "range] before quantisation; every coordinate clipped is counted (summary.json) and warned about. "
                 "With noise on the devices, a range below the clip plus 7 of its standard deviations is refused.")
          .at_least(1e-9)  // below, levels per unit overflow a double (a range of 1e-300)
          .at_most(1e6)
          .null_default("what the input must carry: with DP, the clip plus 7 standard deviations of a device's noise "
                        "(a coordinate cut with probability below 2.6e-12); without DP, 10")
          .fills(&Scenario::privacy, &PrivacySpec::secure_aggregation, &SecureAggregationSpec::range),
      quantity_key("privacy.secure_aggregation.phase_timeout_s", Unit::Seconds,
                   "The key phases (advertise, share), the consistency check and unmasking close this long after "
                   "they open; the clients that have not answered then drop out of the round. The masked inputs "
                   "follow training.round_timeout_s.")
          .above(0)
          .null_default("each phase waits for every live client")
          .fills(&Scenario::privacy, &PrivacySpec::secure_aggregation, &SecureAggregationSpec::phase_timeout_s),
      number_key("stop.epsilon",
                 "privacy.dp: stop before a round that would take epsilon (at privacy.dp.delta) above this budget.")
          .above(0)
          .no_limit()
          .fills(&Scenario::stop, &StopSpec::epsilon),
  };
}

namespace {

// Both mechanisms act on one synchronous round's updates: mode sync, or local-sgd with aggregation sync.
void need_sync_rounds(const nlohmann::json& training, const std::string& at, const std::string& why) {
  const std::string mode = training.at("mode").get<std::string>();
  if (mode == "sync" || (mode == "local-sgd" && training.at("aggregation") == "sync")) return;
  throw ScenarioError(at + ": needs synchronous rounds (training.mode sync, or local-sgd with aggregation sync)" + why +
                      ", not mode " + mode + (mode == "local-sgd" ? " with aggregation async" : ""));
}

// The devices are a population's records on host slots (population.hosts slots).
bool on_slots(const nlohmann::json& resolved) {
  const auto& population = resolved.at("population");
  return population.is_object() && population.at("hosts") == "slots";
}

}  // namespace

std::vector<Rule> privacy_rules() {
  return {
      {"privacy.dp",
       "Synchronous rounds of the flat topology (mode sync, or local-sgd with aggregation sync); not with "
       "selection oort, which picks devices by their losses.",
       [](const nlohmann::json& r) {
         const auto& privacy = r.at("privacy");
         if (privacy.is_null() || privacy.at("dp").is_null()) return;
         const auto& t = r.at("training");
         need_sync_rounds(t, "privacy.dp", "");
         if (r.at("topology").at("kind") != "flat") {
           throw ScenarioError("privacy.dp: needs topology.kind flat (one aggregator adds and accounts the noise), not " +
                               r.at("topology").at("kind").get<std::string>());
         }
         const auto& selection = t.at("selection");
         if (!selection.is_null() && (selection.at("kind") == "oort" || selection.at("kind") == "python")) {
           throw ScenarioError("privacy.dp: not with training.selection.kind " + selection.at("kind").get<std::string>() +
                               ", which may pick devices by their losses and times (data the accountant does not "
                               "cover: it assumes a uniform sample); use random");
         }
         if (privacy.at("dp").at("sampling") != "poisson") return;
         if (privacy.at("dp").at("placement") == "distributed") {
           throw ScenarioError("privacy.dp.sampling: poisson draws a round of varying size, and distributed noise is "
                               "shared among a known number of devices; use fixed_size, or placement central");
         }
         if (!privacy.at("secure_aggregation").is_null()) {
           throw ScenarioError("privacy.dp.sampling: poisson draws a round of varying size, and secure aggregation "
                               "sets its protocol up for a known one; use fixed_size");
         }
         if (on_slots(r))
           throw ScenarioError("privacy.dp.sampling: poisson draws a round of varying size, which population host "
                               "slots cannot hold; use fixed_size, or population.hosts per-device");
       }},
      {"privacy.dp.order",
       "clip_noise_compress needs the noise on the devices (placement local, or distributed without compression).",
       [](const nlohmann::json& r) {
         const auto& privacy = r.at("privacy");
         if (privacy.is_null() || privacy.at("dp").is_null()) return;
         const auto& dp = privacy.at("dp");
         if (dp.at("order") != "clip_noise_compress") return;
         if (dp.at("placement") == "central") {
           throw ScenarioError(
               "privacy.dp.order: clip_noise_compress is not defined with placement central: the aggregator adds "
               "the noise after decoding; use clip_compress_noise, or placement local");
         }
         const auto& compression = r.at("compression");
         if (dp.at("placement") == "distributed" && !compression.is_null() && compression.at("kind") != "none") {
           throw ScenarioError(
               "privacy.dp.order: clip_noise_compress with placement distributed and compression " +
               compression.at("kind").get<std::string>() +
               ": each device's compressor would drop part of its share of the noise, so the sum would carry less "
               "than noise_multiplier x clip; use clip_compress_noise (noisy updates go dense) or placement local");
         }
       }},
      {"privacy.secure_aggregation",
       "Synchronous rounds (mode sync, or local-sgd with aggregation sync) with an aggregator (flat, or each "
       "site of a hierarchical topology), without over-selection, data injection or population host slots; the threshold at most the devices a round "
       "selects (secagg+: the neighbourhood).",
       [](const nlohmann::json& r) {
         const auto& privacy = r.at("privacy");
         if (privacy.is_null() || privacy.at("secure_aggregation").is_null()) return;
         const auto& sa = privacy.at("secure_aggregation");
         const auto& t = r.at("training");
         need_sync_rounds(t, "privacy.secure_aggregation", ": the protocol sums one round's updates");
         const std::string topology = r.at("topology").at("kind").get<std::string>();
         if (topology == "gossip") {
           throw ScenarioError("privacy.secure_aggregation: needs an aggregator (topology.kind flat, or "
                               "hierarchical: each site runs the protocol with its devices), not gossip");
         }
         if (is_given(t, "injection")) {
           throw ScenarioError("privacy.secure_aggregation: not with training.injection (shared samples would travel "
                               "beside the masked inputs, in the clear)");
         }
         if (on_slots(r))
           throw ScenarioError("privacy.secure_aggregation: not with population.hosts slots (a device holds its slot "
                               "for one update; the protocol needs it for five phases): use population.hosts per-device");
         const auto& selection = t.at("selection");
         if (!selection.is_null() && selection.at("over_selection").get<double>() > 0) {
           throw ScenarioError("privacy.secure_aggregation: not with training.selection.over_selection (the "
                               "protocol's survivors decide whose updates count)");
         }
         // The devices a round selects, when the scenario lists them (a population's are drawn later).
         int64_t per_round = r.at("devices").is_array() ? static_cast<int64_t>(r.at("devices").size()) : -1;
         if (!selection.is_null() && selection.at("kind") != "all" && selection.contains("per_round") &&
             !selection.at("per_round").is_null())
           per_round = selection.at("per_round").get<int64_t>();
         if (per_round >= 0 && per_round < 2) {
           throw ScenarioError("privacy.secure_aggregation: a round must select at least 2 devices (the sum of one "
                               "update is that update)");
         }
         const bool plus = sa.at("kind") == "secagg+";
         if (plus && !sa.at("neighbours").is_null() && per_round >= 0 && sa.at("neighbours").get<int64_t>() >= per_round) {
           throw ScenarioError("privacy.secure_aggregation.neighbours: " + sa.at("neighbours").dump() +
                               " is not below the " + std::to_string(per_round) + " devices a round selects");
         }
         if (sa.at("threshold").is_null()) return;
         const int64_t threshold = sa.at("threshold").get<int64_t>();
         if (plus && !sa.at("neighbours").is_null() && threshold > sa.at("neighbours").get<int64_t>() + 1) {
           throw ScenarioError("privacy.secure_aggregation.threshold: " + std::to_string(threshold) +
                               " is above a neighbourhood of " + std::to_string(sa.at("neighbours").get<int64_t>() + 1) +
                               " (neighbours + the device)");
         }
         if (!plus && per_round >= 0 && threshold > per_round) {
           throw ScenarioError("privacy.secure_aggregation.threshold: " + std::to_string(threshold) +
                               " is above the " + std::to_string(per_round) +
                               " devices a round selects: no round could recover its sum");
         }
       }},
      {"stop.epsilon", "Needs privacy.dp.", [](const nlohmann::json& r) {
         if (r.at("stop").at("epsilon").is_null()) return;
         const auto& privacy = r.at("privacy");
         if (privacy.is_null() || privacy.at("dp").is_null()) {
           throw ScenarioError("stop.epsilon: needs privacy.dp (there is no epsilon to spend without it)");
         }
       }},
  };
}

}  // namespace edgetrain::scenario::keys
