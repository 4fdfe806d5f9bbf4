// The RDP accountant against values published by the accountants of TF Privacy and Opacus (each check
// names the repository, file, test or tutorial, and the value printed there), then the edge cases and
// the shape a guarantee must have: more rounds cost more, more noise costs less.
//
// Tolerances follow what was published: a test's own tolerance where it has one (rtol 1e-4;
// assertAlmostEqual's 7 places, |difference| < 5e-8; places=5, < 5e-6), half a unit in the last
// printed digit for values printed in a tutorial or a doctest.
#include "privacy/rdp_accountant.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

using namespace edgetrain::privacy;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::vector<double> times(std::vector<double> rdp, double steps) {
  for (double& r : rdp) r *= steps;
  return rdp;
}

// Checks `actual` against `expected` value by value with relative tolerance `rtol` (numpy's allclose,
// whose absolute part 1e-8 is negligible here); +infinity must match exactly.
void check_all_close(const std::vector<double>& actual, const std::vector<double>& expected, double rtol) {
  REQUIRE(actual.size() == expected.size());
  for (size_t k = 0; k < actual.size(); ++k) {
    CAPTURE(k);
    if (std::isinf(expected[k])) {
      CHECK(actual[k] == expected[k]);
    } else {
      CHECK(std::abs(actual[k] - expected[k]) <= 1e-8 + rtol * std::abs(expected[k]));
    }
  }
}

// TF Privacy's compute_dp_sgd_privacy_lib.compute_dp_sgd_privacy: Poisson sampling at q = batch / n for
// ceil(epochs n / batch) steps, over the orders that script searches.
Epsilon tf_compute_dp_sgd_privacy(double n, double batch_size, double noise_multiplier, double epochs, double delta) {
  std::vector<double> orders{1.25, 1.5, 1.75, 2., 2.25, 2.5, 3., 3.5, 4., 4.5};
  for (int order = 5; order < 64; ++order) orders.push_back(order);
  for (double order : {128., 256., 512.}) orders.push_back(order);
  const double steps = std::ceil(epochs * n / batch_size);
  return epsilon_from_rdp(orders, times(rdp_poisson_gaussian(batch_size / n, noise_multiplier, orders), steps), delta);
}

// The conversion TF Privacy used before 2020 (Mironov 2017, Proposition 3), with which its MNIST
// tutorial figures were printed: epsilon = min over orders of rdp - log(delta) / (alpha - 1).
double classic_epsilon(const std::vector<double>& orders, const std::vector<double>& rdp, double delta) {
  double best = kInfinity;
  for (size_t k = 0; k < orders.size(); ++k) best = std::min(best, rdp[k] - std::log(delta) / (orders[k] - 1));
  return best;
}

// TF Privacy's tutorials/mnist_dpsgd_tutorial.py compute_epsilon: 60,000 examples, 60000 // batch
// steps an epoch, Opacus's orders (TF Privacy's tutorial list first), the classic conversion.
double tf_mnist_tutorial_epsilon(double batch_size, double noise_multiplier, int epochs) {
  const std::vector<double> orders = default_orders(Sampling::poisson);
  const double steps = epochs * std::floor(60000 / batch_size);
  return classic_epsilon(orders, times(rdp_poisson_gaussian(batch_size / 60000, noise_multiplier, orders), steps),
                         1e-5);
}

std::vector<double> integer_orders(int first, int last) {
  std::vector<double> orders;
  for (int order = first; order <= last; ++order) orders.push_back(order);
  return orders;
}

}  // namespace

TEST_CASE("Poisson RDP matches TF Privacy's compute_rdp tests") {
  // tensorflow/privacy, tensorflow_privacy/privacy/analysis/rdp_accountant_test.py,
  // test_compute_rdp_scalar: compute_rdp(0.1, 2, 10, 5) == 0.07737 to places=5.
  CHECK(std::abs(10 * rdp_poisson_gaussian(0.1, 2, {5})[0] - 0.07737) < 5e-6);

  // Same file, test_compute_rdp_sequence (and rdp_privacy_accountant_test.py,
  // test_compute_rdp_poisson_sampled_gaussian): q 0.01, noise 2.5, 50 steps, rtol 1e-4.
  const std::vector<double> orders{1.5, 2.5, 5, 50, 100, kInfinity};
  check_all_close(times(rdp_poisson_gaussian(0.01, 2.5, orders), 50),
                  {6.5007e-04, 1.0854e-03, 2.1808e-03, 2.3846e-02, 1.6742e+02, kInfinity}, 1e-4);

  // Same file, test_compute_rdp_no_data and test_compute_rdp_no_sampling: q 0 gives 0, q 1 gives
  // alpha / (2 z^2) = 20 / 200 = 0.1.
  CHECK(rdp_poisson_gaussian(0, 10, {20})[0] == 0);
  CHECK(rdp_poisson_gaussian(1, 10, {20})[0] == doctest::Approx(0.1).epsilon(1e-15));
}

TEST_CASE("fixed-size RDP matches TF Privacy's sample-without-replacement test") {
  // tensorflow/privacy, tensorflow_privacy/privacy/analysis/rdp_accountant_test.py,
  // test_compute_rdp_sequence_without_replacement: q 0.01, noise 2.5, 50 steps, rtol 1e-4. The
  // fractional orders are the interpolation between integers; 512 and 1024 the bound above 256.
  const std::vector<double> orders{1.001, 1.5, 2.5, 5, 50, 100, 256, 512, 1024, kInfinity};
  check_all_close(
      times(rdp_fixed_size_gaussian(0.01, 2.5, orders), 50),
      {3.4701e-3, 3.4701e-3, 4.6386e-3, 8.7634e-3, 9.8474e-2, 1.6776e2, 7.9297e2, 1.8174e3, 3.8656e3, kInfinity}, 1e-4);
}

TEST_CASE("the conversion matches TF Privacy's epsilon tests") {
  // tensorflow/privacy, tensorflow_privacy/privacy/analysis/rdp_privacy_accountant_test.py,
  // test_compute_epsilon_delta_pure_dp: RDP 1.1 at orders 2..32, delta 1e-5 -> 1.32783806176 (7 places);
  // constant RDP is best at the largest order (rdp_accountant_test.py: opt_order == 32).
  const std::vector<double> orders = integer_orders(2, 32);
  const Epsilon pure = epsilon_from_rdp(orders, std::vector<double>(orders.size(), 1.1), 1e-5);
  CHECK(std::abs(pure.epsilon - 1.32783806176) < 5e-8);
  CHECK(pure.order == 32);

  // Same file, test_compute_epsilon_delta_gaussian: the plain Gaussian with noise 4.530877117 over the
  // orders 1.000 .. 99.999 by 0.001 is exactly (1, 1e-6)-DP (7 places). Order 1 itself is left out
  // (orders here must exceed 1); the conversion ignores orders up to 1.01, so the result is the same.
  std::vector<double> fine_orders;
  for (int i = 1001; i < 100000; ++i) fine_orders.push_back(0.001 * i);
  const Epsilon gaussian = epsilon_from_rdp(fine_orders, rdp_poisson_gaussian(1, 4.530877117, fine_orders), 1e-6);
  CHECK(std::abs(gaussian.epsilon - 1) < 5e-8);
}

TEST_CASE("DP-SGD epsilons match TF Privacy's compute_dp_sgd_privacy tests") {
  // tensorflow/privacy, tensorflow_privacy/privacy/analysis/compute_dp_sgd_privacy_test.py,
  // test_compute_dp_sgd_privacy, (n, batch, noise, epochs, delta) -> (epsilon to 7 places, order).
  const Epsilon test0 = tf_compute_dp_sgd_privacy(60000, 150, 1.3, 15, 1e-5);
  CHECK(std::abs(test0.epsilon - 0.7242234026109595) < 5e-8);
  CHECK(test0.order == 19.0);
  const Epsilon test1 = tf_compute_dp_sgd_privacy(100000, 100, 1.0, 30, 1e-7);
  CHECK(std::abs(test1.epsilon - 1.4154988495444842) < 5e-8);
  CHECK(test1.order == 13.0);
  // Test2 is far out (noise 0.1): epsilon ~ 5.9e6 at the fractional order 1.25, whose series this
  // exercises; 7 places of 5.9e6 are 14 digits, so a relative 1e-9 instead.
  const Epsilon test2 = tf_compute_dp_sgd_privacy(100000000, 1024, 0.1, 10, 1e-7);
  CHECK(test2.epsilon == doctest::Approx(5907982.3113978775).epsilon(1e-9));
  CHECK(test2.order == 1.25);
}

TEST_CASE("DP-SGD statements match TF Privacy's compute_dp_sgd_privacy_statement tests") {
  // tensorflow/privacy, tensorflow_privacy/privacy/analysis/compute_dp_sgd_privacy_test.py (the version
  // on dp_accounting). Its RDP accountant searches dp_accounting's DEFAULT_RDP_ORDERS; microbatching
  // halves the noise multiplier; Poisson sampling runs ceil(epochs / q) steps.
  std::vector<double> orders;
  for (int tenths = 1; tenths < 100; ++tenths) orders.push_back(1 + tenths / 10.0);
  for (int order = 11; order < 64; ++order) orders.push_back(order);
  for (double order : {128., 256., 512., 1024.}) orders.push_back(order);
  const auto epsilon = [&](double q, double noise_multiplier, double steps, double delta) {
    return epsilon_from_rdp(orders, times(rdp_poisson_gaussian(q, noise_multiplier, orders), steps), delta).epsilon;
  };

  // test_compute_dp_sgd_example_privacy, 1.2 epochs, noise 0.7, delta 1e-5, no subsampling (2 steps of
  // the plain Gaussian), 7 places: no_microbatching_no_subsampling_rdp 10.8602036 and
  // microbatching_no_subsampling_rdp 26.2880374.
  CHECK(std::abs(epsilon(1, 0.7, 2, 1e-5) - 10.8602036) < 5e-8);
  CHECK(std::abs(epsilon(1, 0.35, 2, 1e-5) - 26.2880374) < 5e-8);
  // Not matched: the same test's with_subsampling_rdp cases (q 1e-2, 120 steps), 3.2392676 and
  // 22.6248601. Their optimum is at fractional orders (4.4, 1.7), where dp_accounting's newer series adds
  // |C(alpha, i)| for every term instead of subtracting the negative ones as Opacus and TF Privacy do
  // (and as here): an upper bound a little above ours (3.2391922 and 22.5970358 here).

  // test_dp_sgd_privacy_statement_no_user_dp_with_rdp: 10,000 examples, batch 64, 5 epochs, noise 2.0
  // with microbatching (so 1.0), delta 1e-6, printed to 3 decimals: 13.376 with each example once per
  // epoch (5 plain Gaussian steps), 1.616 assuming Poisson sampling (q 0.0064, ceil(781.25) = 782 steps).
  CHECK(std::abs(epsilon(1, 1.0, 5, 1e-6) - 13.376) <= 0.0005);
  CHECK(std::abs(epsilon(64 / 10000.0, 1.0, 782, 1e-6) - 1.616) <= 0.0005);
}

TEST_CASE("the MNIST DP-SGD tutorial's epsilons match TF Privacy's README") {
  // tensorflow/privacy, tutorials/README.md, "Expected Output" of mnist_dpsgd_tutorial.py (batch 256,
  // noise 1.1, delta 1e-5): epsilon 1.03 after 1 epoch, 1.11 after 2, 3.01 after 60 (the DP-SGD
  // example of the brief: noise 1.1, batch 256 of 60,000, 60 epochs). Printed to 2 decimals.
  CHECK(std::abs(tf_mnist_tutorial_epsilon(256, 1.1, 1) - 1.03) <= 0.005);
  CHECK(std::abs(tf_mnist_tutorial_epsilon(256, 1.1, 2) - 1.11) <= 0.005);
  CHECK(std::abs(tf_mnist_tutorial_epsilon(256, 1.1, 60) - 3.01) <= 0.005);
  // Same README, "Select Parameters" table: noise 1.3 for 15 epochs -> 1.19; noise 0.7 for 45 -> 7.10.
  CHECK(std::abs(tf_mnist_tutorial_epsilon(256, 1.3, 15) - 1.19) <= 0.005);
  CHECK(std::abs(tf_mnist_tutorial_epsilon(256, 0.7, 45) - 7.10) <= 0.005);
}

TEST_CASE("the accountant matches Opacus's RDP accountant") {
  // pytorch/opacus, opacus/tests/accountants_test.py, test_rdp_accountant: noise 1.5, sample rate 0.04,
  // int(90 / 0.04) = 2250 steps, delta 1e-5, DEFAULT_ALPHAS -> 7.32911117143 (7 places).
  RdpAccountant accountant(Sampling::poisson);
  accountant.compose(1.5, 0.04, 2250);
  CHECK(std::abs(accountant.epsilon(1e-5).epsilon - 7.32911117143) < 5e-8);

  // pytorch/opacus, opacus/accountants/analysis/rdp.py, module docstring: (q, noise, steps) =
  // (1e-5, 1.0, 10) then (1e-4, 3.0, 4), orders 2..32, delta 1e-5 -> (0.336, 23) (3 decimals).
  const std::vector<double> orders = integer_orders(2, 32);
  std::vector<double> rdp = times(rdp_poisson_gaussian(1e-5, 1.0, orders), 10);
  const std::vector<double> second = times(rdp_poisson_gaussian(1e-4, 3.0, orders), 4);
  for (size_t k = 0; k < rdp.size(); ++k) rdp[k] += second[k];
  const Epsilon composed = epsilon_from_rdp(orders, rdp, 1e-5);
  CHECK(std::abs(composed.epsilon - 0.336) <= 0.0005);
  CHECK(composed.order == 23);
}

TEST_CASE("edge cases: no sampling, full sampling, no noise, no rounds") {
  const std::vector<double> orders{1.5, 2, 7.25, 32};
  for (Sampling sampling : {Sampling::poisson, Sampling::fixed_size}) {
    const auto rdp = [&](double q, double z) {
      return sampling == Sampling::poisson ? rdp_poisson_gaussian(q, z, orders) : rdp_fixed_size_gaussian(q, z, orders);
    };
    CHECK(rdp(0, 1.3) == std::vector<double>(orders.size(), 0.0));
    CHECK(rdp(0, 0) == std::vector<double>(orders.size(), 0.0));
    CHECK(rdp(0.3, 0) == std::vector<double>(orders.size(), kInfinity));
    const std::vector<double> full = rdp(1, 2);
    for (size_t k = 0; k < orders.size(); ++k) CHECK(full[k] == doctest::Approx(orders[k] / 8).epsilon(1e-15));

    RdpAccountant unused(sampling);
    CHECK(unused.rounds() == 0);
    CHECK(unused.epsilon(1e-5).epsilon == 0);
    RdpAccountant noiseless(sampling);
    noiseless.compose(0, 0.01, 0);
    CHECK(noiseless.epsilon(1e-5).epsilon == 0);
    noiseless.compose(0, 0.01);
    CHECK(noiseless.epsilon(1e-5).epsilon == kInfinity);
  }
}

TEST_CASE("RDP is never negative, even where rounding meets a value of order q^2") {
  for (double rdp : rdp_poisson_gaussian(1e-12, 100, default_orders(Sampling::poisson))) CHECK(rdp >= 0);
}

TEST_CASE("rounds of different mechanisms compose by adding their RDP") {
  // Opacus's docstring example above, through the accountant: 10 rounds of (1e-5, 1.0), 4 of (1e-4, 3.0).
  RdpAccountant accountant(Sampling::poisson);
  accountant.compose(1.0, 1e-5, 10);
  const Epsilon ahead = accountant.epsilon_after(3.0, 1e-4, 4, 1e-5);
  accountant.compose(3.0, 1e-4, 4);
  CHECK(accountant.rounds() == 14);
  CHECK(accountant.epsilon(1e-5).epsilon == ahead.epsilon);
  const std::vector<double> orders = default_orders(Sampling::poisson);
  std::vector<double> rdp = times(rdp_poisson_gaussian(1e-5, 1.0, orders), 10);
  const std::vector<double> second = times(rdp_poisson_gaussian(1e-4, 3.0, orders), 4);
  for (size_t k = 0; k < rdp.size(); ++k) rdp[k] += second[k];
  CHECK(accountant.epsilon(1e-5).epsilon == doctest::Approx(epsilon_from_rdp(orders, rdp, 1e-5).epsilon).epsilon(1e-12));
}

TEST_CASE("a fixed-size sample of everyone is the plain Gaussian") {
  const std::vector<double> orders = default_orders(Sampling::fixed_size);
  const std::vector<double> plain = rdp_poisson_gaussian(1, 0.8, orders);
  const std::vector<double> fixed = rdp_fixed_size_gaussian(1, 0.8, orders);
  for (size_t k = 0; k < orders.size(); ++k) CHECK(fixed[k] == plain[k]);
  RdpAccountant everyone(Sampling::fixed_size);
  everyone.compose(0.8, 1, 3);
  CHECK(everyone.epsilon(1e-5).epsilon ==
        epsilon_from_rdp(orders, times(rdp_poisson_gaussian(1, 0.8, orders), 3), 1e-5).epsilon);
}

TEST_CASE("more rounds cost more epsilon, more noise less") {
  for (Sampling sampling : {Sampling::poisson, Sampling::fixed_size}) {
    RdpAccountant accountant(sampling);
    double previous = 0;
    for (int round = 1; round <= 200; ++round) {
      CHECK(accountant.epsilon_after(1.1, 0.01, 1, 1e-5).epsilon > previous);
      accountant.compose(1.1, 0.01);
      const double epsilon = accountant.epsilon(1e-5).epsilon;
      CHECK(epsilon > previous);
      previous = epsilon;
    }
    CHECK(accountant.rounds() == 200);

    double noisier = kInfinity;
    for (double z : {0.5, 0.8, 1.0, 1.5, 2.0, 4.0, 8.0}) {
      RdpAccountant with_noise(sampling);
      with_noise.compose(z, 0.01, 1000);
      const double epsilon = with_noise.epsilon(1e-5).epsilon;
      CHECK(epsilon < noisier);
      noisier = epsilon;
    }
  }
}

TEST_CASE("the default orders are Opacus's, then TF Privacy's large integers, for both samplings") {
  const std::vector<double> orders = default_orders(Sampling::poisson);
  REQUIRE(orders.size() == 154);
  CHECK(orders.front() == 1.1);
  CHECK(orders[98] == 10.9);
  CHECK(orders[99] == 12);
  CHECK(orders[150] == 63);
  CHECK(orders[151] == 64);
  CHECK(orders.back() == 256);
  CHECK(default_orders(Sampling::fixed_size) == orders);
}

TEST_CASE("every device every round: never looser than Opacus (its fractional orders count)") {
  // Opacus's RDPAccountant, z = 1, q = 1, 100 steps, delta 1e-5: 96.12 (integer orders alone give 110.13).
  RdpAccountant everyone(Sampling::fixed_size);
  everyone.compose(1.0, 1.0, 100);
  CHECK(everyone.epsilon(1e-5).epsilon == doctest::Approx(96.12).epsilon(1e-4));
}

TEST_CASE("bad arguments are refused") {
  CHECK_THROWS_AS(rdp_poisson_gaussian(1.5, 1, {2}), std::invalid_argument);
  CHECK_THROWS_AS(rdp_poisson_gaussian(0.1, -1, {2}), std::invalid_argument);
  CHECK_THROWS_AS(rdp_fixed_size_gaussian(0.1, 1, {1}), std::invalid_argument);
  CHECK_THROWS_AS(epsilon_from_rdp({2, 3}, {0.1}, 1e-5), std::invalid_argument);
  CHECK_THROWS_AS(epsilon_from_rdp({2}, {0.1}, 0), std::invalid_argument);
  RdpAccountant accountant(Sampling::poisson);
  CHECK_THROWS_AS(accountant.compose(1, 0.1, -1), std::invalid_argument);
}
