// See rdp_accountant.hpp. Everything that can overflow a double (binomial coefficients, exp of the
// Gaussian's quadratic privacy loss) is carried as a natural log and summed with log-sum-exp.
#include "privacy/rdp_accountant.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace edgetrain::privacy {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// log(exp(a) + exp(b)), exact for a or b == -infinity (the log of 0).
double log_add(double a, double b) {
  const double larger = std::max(a, b);
  const double smaller = std::min(a, b);
  if (smaller == -kInfinity) return larger;
  return larger + std::log1p(std::exp(smaller - larger));
}

// log(exp(a) - exp(b)) for a >= b; a difference that rounding made <= 0 is taken as 0, since every
// caller subtracts a term the exact sum is known to exceed.
double log_sub(double a, double b) {
  if (b == -kInfinity) return a;
  if (a <= b) return -kInfinity;
  return a + std::log(-std::expm1(b - a));
}

// log(erfc(x)), accurate where erfc itself underflows (x above about 26.5). From x = 25 on, the
// asymptotic series erfc(x) = exp(-x^2) / (x sqrt(pi)) * sum_n (-1)^n (2n-1)!! / (2x^2)^n has terms
// below 1e-14 after the fifth, so five of them give double precision.
double log_erfc(double x) {
  if (x < 25) return std::log(std::erfc(x));
  const double inverse_two_x_squared = 1 / (2 * x * x);
  double series = 1;
  double term = 1;
  for (int n = 1; n <= 5; ++n) {
    term *= -(2 * n - 1) * inverse_two_x_squared;
    series += term;
  }
  return -x * x - std::log(x) - 0.5 * std::log(std::numbers::pi) + std::log(series);
}

bool is_integer(double order) { return std::floor(order) == order; }

// A number carried as the log of its magnitude and its sign, for sums whose terms alternate.
struct SignedLog {
  double log_magnitude;
  bool negative;
};

SignedLog signed_difference(SignedLog a, SignedLog b) {  // a - b
  if (a.negative != b.negative) return {log_add(a.log_magnitude, b.log_magnitude), a.negative};
  if (a.log_magnitude >= b.log_magnitude) return {log_sub(a.log_magnitude, b.log_magnitude), a.negative};
  return {log_sub(b.log_magnitude, a.log_magnitude), !a.negative};
}

// ---- Poisson sampling (Mironov, Talwar, Zhang 2019) ----
// The RDP at order alpha is log(A_alpha) / (alpha - 1), with
//   A_alpha = E_{x ~ N(0, z^2)} [ (1 - q + q exp((2x - 1) / (2 z^2)))^alpha ].

// Integer alpha: the binomial expansion, sum_i C(alpha, i) q^i (1-q)^(alpha-i) exp((i^2 - i) / (2 z^2)),
// all of whose terms are positive.
double poisson_log_a_at_integer_order(double q, double z, double alpha) {
  const double log_q = std::log(q);
  const double log_one_minus_q = std::log1p(-q);
  double log_binomial = 0;  // log C(alpha, i), updated term by term (no lgamma: it is not thread-safe)
  double log_a = -kInfinity;
  for (double i = 0; i <= alpha; ++i) {
    log_a = log_add(log_a, log_binomial + i * log_q + (alpha - i) * log_one_minus_q + (i * i - i) / (2 * z * z));
    log_binomial += std::log(alpha - i) - std::log(i + 1);
  }
  return log_a;
}

// Fractional alpha: the binomial series no longer ends and its coefficients change sign, so the
// integral is split at z0, where q exp((2x - 1) / (2 z^2)) = 1 - q, and each half is expanded in the
// smaller over the larger part (Section 3.3). The terms are summed until both halves' terms fall below
// exp(-30), which is how Opacus and TF Privacy end it, so the value matches theirs.
double poisson_log_a_at_fractional_order(double q, double z, double alpha) {
  const double log_q = std::log(q);
  const double log_one_minus_q = std::log1p(-q);
  const double z0 = z * z * std::log(1 / q - 1) + 0.5;
  const double erfc_scale = std::numbers::sqrt2 * z;
  double log_a_below_z0 = -kInfinity;
  double log_a_above_z0 = -kInfinity;
  SignedLog binomial{0, false};  // C(alpha, i)
  for (double i = 0;; ++i) {
    const double j = alpha - i;
    const double log_term_below = binomial.log_magnitude + i * log_q + j * log_one_minus_q + (i * i - i) / (2 * z * z) +
                                  std::log(0.5) + log_erfc((i - z0) / erfc_scale);
    const double log_term_above = binomial.log_magnitude + j * log_q + i * log_one_minus_q + (j * j - j) / (2 * z * z) +
                                  std::log(0.5) + log_erfc((z0 - j) / erfc_scale);
    if (binomial.negative) {
      log_a_below_z0 = log_sub(log_a_below_z0, log_term_below);
      log_a_above_z0 = log_sub(log_a_above_z0, log_term_above);
    } else {
      log_a_below_z0 = log_add(log_a_below_z0, log_term_below);
      log_a_above_z0 = log_add(log_a_above_z0, log_term_above);
    }
    if (std::max(log_term_below, log_term_above) < -30) break;
    const double ratio = (alpha - i) / (i + 1);  // C(alpha, i + 1) / C(alpha, i)
    binomial = {binomial.log_magnitude + std::log(std::abs(ratio)), binomial.negative != (ratio < 0)};
  }
  return log_add(log_a_below_z0, log_a_above_z0);
}

double poisson_log_a(double q, double z, double alpha) {
  return is_integer(alpha) ? poisson_log_a_at_integer_order(q, z, alpha)
                           : poisson_log_a_at_fractional_order(q, z, alpha);
}

// ---- Sample of fixed size (Wang, Balle, Kasiviswanathan 2019, Theorem 27) ----
// The bound on (alpha - 1) epsilon(alpha) is log(1 + sum_{i=2}^{alpha} C(alpha, i) q^i T_i), with T_i
// built from the plain Gaussian's B(l) = exp((l - 1) eps_G(l)) = exp((l - 1) l / (2 z^2)).

// TF Privacy's cut-off: above it the forward differences (quadratic in alpha) are skipped for the
// cruder term 2 B(i).
constexpr double kLargestOrderWithDifferences = 256;

double log_b(double l, double z) { return (l - 1) * l / (2 * z * z); }

// log of the forward differences Delta^k B at 0, k = 0 .. largest, by repeated differencing of
// B(0), B(1), ..., B(largest) (the differences alternate in sign, hence SignedLog).
std::vector<double> log_forward_differences_of_b(int largest, double z) {
  std::vector<SignedLog> row;
  for (int l = 0; l <= largest; ++l) row.push_back({log_b(l, z), false});
  std::vector<double> log_differences;
  for (int k = 0; k <= largest; ++k) {
    log_differences.push_back(row.front().log_magnitude);
    for (int l = 0; l + 1 < static_cast<int>(row.size()); ++l) row[l] = signed_difference(row[l + 1], row[l]);
    row.pop_back();
  }
  return log_differences;
}

// The term i = 2: C(alpha, 2) q^2 min(4 (e^{eps_G(2)} - 1), 2 e^{eps_G(2)}).
double fixed_size_log_second_term(double q, double z, double log_binomial_2) {
  const double gaussian_rdp_2 = 1 / (z * z);
  const double log_expm1 = gaussian_rdp_2 + std::log(-std::expm1(-gaussian_rdp_2));
  return 2 * std::log(q) + log_binomial_2 + std::min(std::log(4.0) + log_expm1, std::log(2.0) + gaussian_rdp_2);
}

double fixed_size_log_a_at_integer_order(double q, double z, int alpha) {
  if (alpha == 1) return 0;
  const bool with_differences = alpha <= kLargestOrderWithDifferences;
  // Differences up to order 2 ceil(alpha / 2) <= alpha + 1.
  const std::vector<double> log_differences =
      with_differences ? log_forward_differences_of_b(alpha + 1, z) : std::vector<double>{};
  const double log_q = std::log(q);
  double log_binomial = std::log(alpha) + std::log(alpha - 1) - std::log(2.0);  // log C(alpha, 2)
  double log_a = log_add(0, fixed_size_log_second_term(q, z, log_binomial));
  for (int i = 3; i <= alpha; ++i) {
    log_binomial += std::log(alpha - i + 1) - std::log(i);
    double log_t = std::log(2.0) + log_b(i, z);
    if (with_differences) {
      // 4 sqrt(Delta^{2 floor(i/2)} B(0) Delta^{2 ceil(i/2)} B(0)), when that is the smaller
      const double log_even_below = log_differences[2 * (i / 2)];
      const double log_even_above = log_differences[2 * ((i + 1) / 2)];
      log_t = std::min(log_t, std::log(4.0) + 0.5 * (log_even_below + log_even_above));
    }
    log_a = log_add(log_a, log_t + i * log_q + log_binomial);
  }
  return log_a;
}

// (alpha - 1) epsilon(alpha): exact bound at integers, interpolated linearly in between.
double fixed_size_log_a(double q, double z, double alpha) {
  const double below = std::floor(alpha);
  const double log_a_below = fixed_size_log_a_at_integer_order(q, z, static_cast<int>(below));
  if (alpha == below) return log_a_below;
  const double log_a_above = fixed_size_log_a_at_integer_order(q, z, static_cast<int>(below) + 1);
  const double fraction = alpha - below;
  return (1 - fraction) * log_a_below + fraction * log_a_above;
}

// ---- Shared by both samplings ----

void check_mechanism(double q, double noise_multiplier) {
  if (!(q >= 0 && q <= 1)) throw std::invalid_argument("RDP accountant: the sampling rate must be in [0, 1]");
  if (!(noise_multiplier >= 0)) throw std::invalid_argument("RDP accountant: the noise multiplier must be >= 0");
}

// The cases every sampling shares, then log_a(alpha) / (alpha - 1) for a proper subsample.
template <typename LogA>
std::vector<double> rdp_at_orders(double q, double z, const std::vector<double>& orders, LogA log_a) {
  check_mechanism(q, z);
  std::vector<double> rdp;
  rdp.reserve(orders.size());
  for (double alpha : orders) {
    if (!(alpha > 1)) throw std::invalid_argument("RDP accountant: every order must be > 1");
    if (q == 0) {
      rdp.push_back(0);
    } else if (z == 0 || alpha == kInfinity) {
      rdp.push_back(kInfinity);
    } else if (q == 1) {
      rdp.push_back(alpha / (2 * z * z));
    } else {
      // RDP is never negative; where log A is of order q^2 (tiny q, large z) rounding can leave it a
      // hair below 0, which the conversion must not see.
      rdp.push_back(std::max(0.0, log_a(q, z, alpha) / (alpha - 1)));
    }
  }
  return rdp;
}

// Balle et al. 2020, Theorem 21, at one order, with TF Privacy's guards (see the header).
double epsilon_at_order(double alpha, double rdp, double delta) {
  if (delta * delta + std::expm1(-rdp) > 0) return 0;
  if (alpha <= 1.01) return kInfinity;
  return rdp + std::log1p(-1 / alpha) - std::log(delta * alpha) / (alpha - 1);
}

}  // namespace

std::vector<double> default_orders(Sampling) {
  std::vector<double> orders;
  for (int tenths = 1; tenths < 100; ++tenths) orders.push_back(1 + tenths / 10.0);
  for (int order = 12; order <= 64; ++order) orders.push_back(order);
  orders.push_back(128);
  orders.push_back(256);
  return orders;
}

std::vector<double> rdp_poisson_gaussian(double q, double noise_multiplier, const std::vector<double>& orders) {
  return rdp_at_orders(q, noise_multiplier, orders, poisson_log_a);
}

std::vector<double> rdp_fixed_size_gaussian(double q, double noise_multiplier, const std::vector<double>& orders) {
  return rdp_at_orders(q, noise_multiplier, orders, fixed_size_log_a);
}

Epsilon epsilon_from_rdp(const std::vector<double>& orders, const std::vector<double>& rdp, double delta) {
  if (orders.empty() || orders.size() != rdp.size())
    throw std::invalid_argument("epsilon_from_rdp: one RDP value per order, at least one order");
  if (!(delta > 0 && delta < 1)) throw std::invalid_argument("epsilon_from_rdp: delta must be in (0, 1)");
  Epsilon best{kInfinity, orders.front()};
  for (size_t k = 0; k < orders.size(); ++k) {
    const double epsilon = epsilon_at_order(orders[k], rdp[k], delta);
    if (epsilon < best.epsilon) best = {epsilon, orders[k]};
  }
  best.epsilon = std::max(0.0, best.epsilon);
  return best;
}

RdpAccountant::RdpAccountant(Sampling sampling)
    : sampling_(sampling), orders_(default_orders(sampling)), composed_(orders_.size(), 0.0) {}

const std::vector<double>& RdpAccountant::one_step(double noise_multiplier, double sampling_rate) {
  if (noise_multiplier != last_noise_ || sampling_rate != last_rate_) {
    last_step_ = sampling_ == Sampling::poisson ? rdp_poisson_gaussian(sampling_rate, noise_multiplier, orders_)
                                                : rdp_fixed_size_gaussian(sampling_rate, noise_multiplier, orders_);
    last_noise_ = noise_multiplier;
    last_rate_ = sampling_rate;
  }
  return last_step_;
}

void RdpAccountant::compose(double noise_multiplier, double sampling_rate, int64_t rounds) {
  if (rounds < 0) throw std::invalid_argument("RdpAccountant::compose: rounds must be >= 0");
  if (rounds == 0) return;  // nothing composed, even where one step's RDP is infinite
  const std::vector<double>& step = one_step(noise_multiplier, sampling_rate);
  for (size_t k = 0; k < orders_.size(); ++k) composed_[k] += static_cast<double>(rounds) * step[k];
  rounds_ += rounds;
}

Epsilon RdpAccountant::epsilon(double delta) const { return epsilon_from_rdp(orders_, composed_, delta); }

Epsilon RdpAccountant::epsilon_after(double noise_multiplier, double sampling_rate, int64_t rounds, double delta) {
  if (rounds < 0) throw std::invalid_argument("RdpAccountant::epsilon_after: rounds must be >= 0");
  if (rounds == 0) return epsilon(delta);
  const std::vector<double>& step = one_step(noise_multiplier, sampling_rate);
  std::vector<double> ahead = composed_;
  for (size_t k = 0; k < orders_.size(); ++k) ahead[k] += static_cast<double>(rounds) * step[k];
  return epsilon_from_rdp(orders_, ahead, delta);
}

}  // namespace edgetrain::privacy
