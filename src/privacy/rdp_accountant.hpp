// The Rényi-DP accountant of differential privacy: the RDP of one step of the (subsampled) Gaussian
// mechanism at a list of orders, its composition over rounds, and the (epsilon, delta) it implies.
// The maths follows the accountants of TF Privacy and Opacus, so that an epsilon printed here can be
// compared with one printed by them: Mironov, Talwar, Zhang 2019 for Poisson sampling, Wang, Balle,
// Kasiviswanathan 2019 for a sample of fixed size, and the conversion of Balle et al. 2020.
// Plain C++: no LibTorch, no SimGrid.
#pragma once

#include <cstdint>
#include <vector>

namespace edgetrain::privacy {

// How the clients (or examples) of a round are drawn.
enum class Sampling {
  poisson,     // each one independently with probability q (add-or-remove-one neighbours)
  fixed_size,  // a uniform sample of fixed size q*n without replacement (replace-one neighbours)
};

// The Rényi orders searched for the best epsilon, the same for both samplings: Opacus's
// RDPAccountant.DEFAULT_ALPHAS (1.1, 1.2, ..., 10.9, then 12, ..., 63), so that an epsilon is never
// looser than Opacus's for the same mechanism, then 64, 128 and 256 (TF Privacy's integer orders), 154
// orders. A fixed-size sample's bound is for integer orders; between two integers it is interpolated
// (an upper bound, see rdp_fixed_size_gaussian). Like Opacus's, they cannot show an epsilon below about
// 0.045 at delta = 1e-5 once the RDP is above 0 (the term log(1/delta) / 255 of order 256).
std::vector<double> default_orders(Sampling sampling);

// RDP epsilon(alpha) of ONE step at each order (each > 1; +infinity allowed), for sampling rate q in
// [0, 1] and noise multiplier z >= 0 (noise sigma = z x sensitivity). q == 0 gives 0 at every order,
// even when z == 0 (no one's data is touched); otherwise z == 0 gives +infinity, and q == 1 the plain
// Gaussian alpha / (2 z^2).
//
// Poisson: Mironov, Talwar, Zhang 2019, "Rényi differential privacy of the sampled Gaussian mechanism",
// Section 3.3: the exact binomial sum at integer orders and the two-sided erfc series at fractional
// ones, as in Opacus's and TF Privacy's compute_rdp.
std::vector<double> rdp_poisson_gaussian(double q, double noise_multiplier, const std::vector<double>& orders);

// Fixed size: the upper bound of Wang, Balle, Kasiviswanathan 2019, "Subsampled Rényi differential
// privacy and analytical moments accountant", Theorem 27, as TF Privacy's
// compute_rdp_sample_without_replacement: the full bound (with forward differences) at integer orders
// up to 256, TF Privacy's cruder one above. At a fractional order it returns the linear interpolation
// of (alpha - 1) epsilon(alpha) between the two integers around alpha (their Corollary 10), again as
// TF Privacy: an upper bound.
std::vector<double> rdp_fixed_size_gaussian(double q, double noise_multiplier, const std::vector<double>& orders);

// An (epsilon, delta) guarantee: epsilon at the delta asked for, and the order that gave it.
struct Epsilon {
  double epsilon;
  double order;
};

// The smallest epsilon at `delta` (in (0, 1)) that the RDP curve `rdp` at `orders` implies: Balle et al.
// 2020, "Hypothesis testing interpretations and Rényi differential privacy", Theorem 21, the conversion
// of Opacus's get_privacy_spent and TF Privacy's current compute_epsilon, with TF Privacy's two guards:
// epsilon 0 where the KL bound delta >= sqrt(1 - exp(-rdp)) already holds, and no use of orders at or
// below 1.01, where the formula is unstable. The order is that of the first minimum.
Epsilon epsilon_from_rdp(const std::vector<double>& orders, const std::vector<double>& rdp, double delta);

// Subsampled Gaussian mechanisms composed over rounds: RDP adds up, so the accountant keeps the sum at
// each order, and a round of a mechanism it saw last costs one pass over the orders (one step's RDP is
// kept for the last (noise, rate) pair: rounds of one mechanism compute it once).
class RdpAccountant {
 public:
  explicit RdpAccountant(Sampling sampling);

  // Adds `rounds` (>= 0) steps of the Gaussian mechanism with noise multiplier z at sampling rate q.
  void compose(double noise_multiplier, double sampling_rate, int64_t rounds = 1);
  int64_t rounds() const { return rounds_; }

  // epsilon at `delta` after the rounds so far: 0 before any round; +infinity when a round had noise
  // multiplier 0 (and a sampling rate above 0).
  Epsilon epsilon(double delta) const;
  // epsilon at `delta` were `rounds` more steps of (z, q) composed: a budget's look-ahead.
  Epsilon epsilon_after(double noise_multiplier, double sampling_rate, int64_t rounds, double delta);

 private:
  const std::vector<double>& one_step(double noise_multiplier, double sampling_rate);

  Sampling sampling_;
  std::vector<double> orders_;
  std::vector<double> composed_;  // the RDP of the rounds so far, at each order
  int64_t rounds_ = 0;
  double last_noise_ = -1, last_rate_ = -1;  // the mechanism of last_step_
  std::vector<double> last_step_;
};

}  // namespace edgetrain::privacy
