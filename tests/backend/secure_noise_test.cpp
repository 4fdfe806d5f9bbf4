// Distributed DP under secure aggregation: the noise that reaches the aggregated sum has the standard
// deviation the accountant charges. The model's update is known (zero: what a device whose update is
// zero sends is its noise share alone), so the protocol's decoded sum is the noise itself; the real
// protocol (X25519, Shamir, AES masks) sums the eight devices' quantised inputs.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <numeric>
#include <vector>

#include "backend/secure_round.hpp"
#include "backend/update_privacy.hpp"
#include "scenario/load.hpp"
#include "scenario/population.hpp"

using namespace edgetrain;

namespace {

constexpr int64_t kLength = 20000;

// The decoded sum of one real round in which every device's update is zero.
std::vector<double> noise_sum(const scenario::Scenario& sc, int64_t& clipped) {
  std::vector<size_t> devices(sc.devices.size());
  std::iota(devices.begin(), devices.end(), size_t{0});
  backend::SecureRound round(sc, devices, kLength, 7, true);
  const double share = scenario::device_noise_stddev(sc);
  std::map<size_t, backend::ProtocolMessage> from_server;
  for (int p = 0; p <= static_cast<int>(backend::Phase::unmasking); ++p) {
    const auto phase = static_cast<backend::Phase>(p);
    for (size_t d : devices) {
      std::vector<float> input(kLength, 0.0f);
      if (phase == backend::Phase::masked_input) {
        backend::DevicePrivacy(*sc.privacy.dp, share, 1000 + d).noise_decoded(input, 0);
      }
      double flops = 0;
      round.receive(phase, d, round.answer(d, phase, from_server[d], input, flops));
    }
    backend::PhaseOutcome outcome = round.close(phase);
    REQUIRE(!outcome.failed());
    from_server.clear();
    for (auto& [d, message] : outcome.next) from_server[d] = std::move(message);
  }
  clipped = round.clipped_coordinates();
  return round.sum();
}

double stddev(const std::vector<double>& v) {
  double sum = 0, squares = 0;
  for (double x : v) {
    sum += x;
    squares += x * x;
  }
  const double n = static_cast<double>(v.size());
  return std::sqrt(squares / n - (sum / n) * (sum / n));
}

scenario::Scenario eight_devices(const std::string& dp, const std::string& secure) {
  return scenario::load_scenario(std::string(EDGETRAIN_SOURCE_DIR) + "/tests/sim/data/eight-devices.json",
                                 {"privacy.dp=" + dp, "privacy.secure_aggregation=" + secure});
}

}  // namespace

TEST_CASE("secure aggregation carries the whole distributed noise: its sum has standard deviation z x clip") {
  for (double z : {1.0, 4.0}) {
    CAPTURE(z);
    const scenario::Scenario sc = eight_devices(
        "{\"placement\":\"distributed\",\"clip\":1,\"noise_multiplier\":" + std::to_string(z) + "}", "{}");
    // Eight devices each add z / sqrt(8): their sum carries z x clip, what the accountant charges.
    int64_t clipped = -1;
    const std::vector<double> sum = noise_sum(sc, clipped);
    REQUIRE(sum.size() == static_cast<size_t>(kLength));
    CHECK(stddev(sum) == doctest::Approx(z).epsilon(0.03));  // sampling error of 20,000 draws: 0.5%
    CHECK(clipped == 0);
    // The range holds the clip and seven of a share's standard deviations.
    CHECK(backend::secure_input_range(sc) == doctest::Approx(1 + 7 * z / std::sqrt(8.0)));
  }
}

TEST_CASE("a range that would cut the devices' noise is refused, naming the least that carries it") {
  const scenario::Scenario sc = eight_devices("{\"placement\":\"distributed\",\"noise_multiplier\":4}", "{\"range\":1}");
  CHECK_THROWS_WITH(backend::secure_input_range(sc),
                    doctest::Contains("privacy.secure_aggregation.range: 1 would cut the noise the devices add"));
  // Central DP: the devices send clipped updates, whose coordinates the clip bounds.
  const scenario::Scenario central = eight_devices("{\"placement\":\"central\",\"clip\":2}", "{}");
  CHECK(backend::secure_input_range(central) == 2);
  // Without DP, nothing bounds an update: the documented default.
  const scenario::Scenario plain = scenario::load_scenario(
      std::string(EDGETRAIN_SOURCE_DIR) + "/tests/sim/data/eight-devices.json", {"privacy.secure_aggregation={}"});
  CHECK(backend::secure_input_range(plain) == backend::kRangeWithoutDp);
}
