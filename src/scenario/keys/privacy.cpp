// See privacy.hpp.
#include "scenario/keys/privacy.hpp"

#include "scenario/error.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> privacy_rows() {
  return {
      section_key("privacy", "Privacy mechanisms on the devices' updates: differential privacy (`dp`).")
          .null_default("none: updates go as trained (and compressed)"),
      section_key("privacy.dp",
                  "Client-level differential privacy (DP-FedAvg, McMahan et al., ICLR 2018): each device clips its "
                  "update to L2 norm `clip`; Gaussian noise of standard deviation noise_multiplier x clip is added to "
                  "a round's sum; a Renyi-DP accountant gives epsilon after every round.")
          .null_default("no differential privacy")
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
               "clip_noise_compress = devices add their noise before compressing (distributed, local only).")
          .def_if(when("privacy.dp.placement", {"central"}), "clip_compress_noise")
          .def("clip_noise_compress")
          .fills(&Scenario::privacy, &PrivacySpec::dp, &DpSpec::order),
      enum_key("privacy.dp.sampling", {"fixed_size", "poisson"},
               "What the accountant assumes of training.selection random: fixed_size = what it draws, K of N "
               "without replacement (Wang et al., AISTATS 2019); poisson = each device in with probability K/N "
               "(Mironov et al. 2019, as Opacus and TensorFlow Privacy account), an approximation here.")
          .def("fixed_size")
          .fills(&Scenario::privacy, &PrivacySpec::dp, &DpSpec::sampling),
      number_key("stop.epsilon",
                 "privacy.dp: stop before a round that would take epsilon (at privacy.dp.delta) above this budget.")
          .above(0)
          .no_limit()
          .fills(&Scenario::stop, &StopSpec::epsilon),
  };
}

std::vector<Rule> privacy_rules() {
  return {
      {"privacy.dp",
       "Synchronous rounds of the flat topology (mode sync, or local-sgd with aggregation sync); not with "
       "selection oort, which picks devices by their losses.",
       [](const nlohmann::json& r) {
         const auto& privacy = r.at("privacy");
         if (privacy.is_null() || privacy.at("dp").is_null()) return;
         const auto& t = r.at("training");
         const std::string mode = t.at("mode").get<std::string>();
         if (!(mode == "sync" || (mode == "local-sgd" && t.at("aggregation") == "sync"))) {
           throw ScenarioError("privacy.dp: needs synchronous rounds (training.mode sync, or local-sgd with "
                               "aggregation sync), not mode " +
                               mode + (mode == "local-sgd" ? " with aggregation async" : ""));
         }
         if (r.at("topology").at("kind") != "flat") {
           throw ScenarioError("privacy.dp: needs topology.kind flat (one aggregator adds and accounts the noise), not " +
                               r.at("topology").at("kind").get<std::string>());
         }
         const auto& selection = t.at("selection");
         if (!selection.is_null() && selection.at("kind") == "oort") {
           throw ScenarioError(
               "privacy.dp: not with training.selection.kind oort, which picks devices by their losses (data the "
               "accountant does not cover); use random");
         }
       }},
      {"privacy.dp.order",
       "clip_noise_compress needs the noise on the devices (placement distributed or local).",
       [](const nlohmann::json& r) {
         const auto& privacy = r.at("privacy");
         if (privacy.is_null() || privacy.at("dp").is_null()) return;
         const auto& dp = privacy.at("dp");
         if (dp.at("order") == "clip_noise_compress" && dp.at("placement") == "central") {
           throw ScenarioError(
               "privacy.dp.order: clip_noise_compress is not defined with placement central: the aggregator adds "
               "the noise after decoding; use clip_compress_noise, or placement distributed or local");
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
