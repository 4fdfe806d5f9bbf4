// Arrival processes advanced analytically between looks at the buffer (see arrivals.hpp).
//
// Fluid: sample k arrives at inverse(k). Counts are taken from that same function (the largest
// k with inverse(k) <= t), not from floor(Lambda(t)) directly, so that advance_to(time_of_next(m))
// returns m even where rounding puts Lambda(inverse(k)) a hair below k.
//
// Poisson: a unit-rate Poisson process in intensity space u = Lambda(t), mapped to time by the
// inverse. Uncommitted stretches draw Poisson(length) per rate step. time_of_next(count) draws
// the position of the count-th point (Gamma) and records a commitment; advancing part-way into a
// commitment moves Binomial(n - 1, elapsed fraction) of its n - 1 uniform inner points.
#include "stream/arrivals.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "stream/rates.hpp"
#include "util/format.hpp"

namespace edgetrain::stream {

using util::format_number;

namespace {

// Counts are converted between double and int64: beyond 2^53 samples they stop being exact. Poisson
// draws need the same bound: std::poisson_distribution runs for ever on means near the double range.
constexpr double kMaxExactCount = 9007199254740992.0;

StreamError too_many(std::optional<double> by_time) {
  return StreamError("stream: more than 2^53 samples" + (by_time ? " by time " + format_number(*by_time) : "") +
                     ", too many to count exactly");
}

struct Piece {
  size_t step;
  double ua, ub;  // intensity interval within the step
};

// The parts of intensity interval (ua, ub] lying in steps of positive rate, in order.
std::vector<Piece> pieces(const RateProfile& p, double ua, double ub) {
  std::vector<Piece> out;
  if (!(ub > ua)) return out;
  const size_t last = p.step_reaching(ub);
  for (size_t i = p.step_reaching(ua); i <= last; ++i) {
    if (!(p.step_rate(i) > 0)) continue;
    const double a = std::max(ua, p.step_cumulative(i));
    const double b = i + 1 < p.step_count() ? std::min(ub, p.step_cumulative(i + 1)) : ub;
    if (b > a) out.push_back({i, a, b});
  }
  return out;
}

}  // namespace

ArrivalProcess::Kind parse_arrival_kind(const std::string& name) {
  if (name == "fluid") return ArrivalProcess::Kind::Fluid;
  if (name == "poisson") return ArrivalProcess::Kind::Poisson;
  throw StreamError("unknown arrival process '" + name + "' (expected fluid or poisson)");
}

ArrivalProcess::ArrivalProcess(RateProfile profile, Kind kind, uint64_t seed)
    : profile_(std::move(profile)), kind_(kind), rng_(seed) {}

void ArrivalProcess::push(std::vector<ArrivalChunk>& out, int64_t count, double t_first, double t_last) {
  out.push_back({next_seq_, count, t_first, t_last});
  next_seq_ += count;
}

int64_t ArrivalProcess::fluid_count_by(double t) const {
  const double lambda = profile_.cumulative(t);
  if (lambda >= kMaxExactCount) throw too_many(t);
  // floor(Lambda(t)) is right up to rounding: settle on the definition, the largest k with
  // inverse(k) <= t. Where samples come faster than the clock resolves (rate x ulp(t) > 1), many
  // share one instant and floor(Lambda) can be that many off: search in doubling steps, then bisect.
  auto arrived = [&](int64_t k) { return k <= 0 || profile_.inverse(static_cast<double>(k)) <= t; };
  int64_t lo = static_cast<int64_t>(std::floor(lambda)), hi = lo;  // arrived(lo), not arrived(hi)
  if (arrived(lo)) {
    for (int64_t step = 1; arrived(hi = lo + step); step *= 2) {
      if (hi >= kMaxExactCount) throw too_many(t);
      lo = hi;
    }
  } else {
    for (int64_t step = 1; !arrived(lo = std::max<int64_t>(0, hi - step)); step *= 2) hi = lo;
  }
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (arrived(mid) ? lo : hi) = mid;
  }
  return lo;
}

void ArrivalProcess::emit_fluid(int64_t k_to, std::vector<ArrivalChunk>& out) {
  const int64_t k_from = next_seq_ + 1;
  if (k_to < k_from) return;
  // Sample k belongs to the step i with Lambda(start of i) < k <= Lambda(start of i + 1): one chunk per step.
  const size_t first = profile_.step_reaching(static_cast<double>(k_from));
  const size_t last = profile_.step_reaching(static_cast<double>(k_to));
  for (size_t i = first; i <= last; ++i) {
    const int64_t lo = std::max(k_from, static_cast<int64_t>(std::floor(profile_.step_cumulative(i))) + 1);
    int64_t hi = k_to;
    if (i + 1 < profile_.step_count())
      hi = static_cast<int64_t>(std::min(static_cast<double>(k_to), std::floor(profile_.step_cumulative(i + 1))));
    if (hi < lo) continue;
    push(out, hi - lo + 1, profile_.inverse(static_cast<double>(lo)), profile_.inverse(static_cast<double>(hi)));
  }
}

void ArrivalProcess::emit_uniform(double ua, double ub, int64_t n, const Commitment* end,
                                  std::vector<ArrivalChunk>& out) {
  const std::vector<Piece> ps = pieces(profile_, ua, ub);
  if (ps.empty()) {
    if (end) push(out, 1, end->t, end->t);  // only the committed point itself is left
    return;
  }
  double rest = 0;
  for (const Piece& p : ps) rest += p.ub - p.ua;
  int64_t left = n;
  for (size_t j = 0; j < ps.size(); ++j) {
    const Piece& p = ps[j];
    const double w = p.ub - p.ua;
    int64_t k = left;
    if (j + 1 < ps.size() && left > 0) {
      // Uniform points split over the steps by their share of the intensity (a multinomial, drawn step by step).
      const double share = std::clamp(w / rest, 0.0, 1.0);
      k = std::binomial_distribution<int64_t>(left, share)(rng_);
    }
    rest -= w;
    left -= k;
    const double ta = profile_.step_inverse(p.step, p.ua);
    if (end && j + 1 == ps.size()) {
      // The committed point closes the last step's chunk at exactly the committed time.
      push(out, k + 1, ta + (end->t - ta) / static_cast<double>(k + 1), end->t);
    } else if (k > 0) {
      const double tb = profile_.step_inverse(p.step, p.ub), gap = (tb - ta) / static_cast<double>(k + 1);
      push(out, k, ta + gap, ta + gap * static_cast<double>(k));
    }
  }
}

void ArrivalProcess::emit_fresh(double ua, double ub, std::vector<ArrivalChunk>& out) {
  for (const Piece& p : pieces(profile_, ua, ub)) {
    const int64_t k = std::poisson_distribution<int64_t>(p.ub - p.ua)(rng_);
    if (k == 0) continue;
    // Expected positions of k uniform points: (j / (k + 1)) of the way through the step's stretch.
    const double ta = profile_.step_inverse(p.step, p.ua), tb = profile_.step_inverse(p.step, p.ub);
    const double gap = (tb - ta) / static_cast<double>(k + 1);
    push(out, k, ta + gap, ta + gap * static_cast<double>(k));
  }
}

std::vector<ArrivalChunk> ArrivalProcess::advance_to(double t) {
  if (std::isnan(t) || t < clock_)
    throw StreamError("stream: cannot advance arrivals to time " + format_number(t) + ", before the clock " +
                      format_number(clock_));
  std::vector<ArrivalChunk> out;
  if (kind_ == Kind::Fluid) {
    emit_fluid(std::max(next_seq_, fluid_count_by(t)), out);
    clock_ = t;
    return out;
  }

  const double u_t = std::max(u_clock_, profile_.cumulative(t));
  if (u_t >= kMaxExactCount) throw too_many(t);
  poisson_advance(t, u_t, out);
  // Expected positions computed in intensity space may round a hair outside (clock, t]: keep them inside.
  for (ArrivalChunk& c : out) {
    c.t_first = std::clamp(c.t_first, clock_, t);
    c.t_last = std::clamp(c.t_last, c.t_first, t);
  }
  clock_ = t;
  return out;
}

void ArrivalProcess::poisson_advance(double t, double u_t, std::vector<ArrivalChunk>& out) {
  while (!commitments_.empty()) {
    Commitment& c = commitments_.front();
    if (t >= c.t) {
      emit_uniform(u_clock_, c.u, c.n - 1, &c, out);
      u_clock_ = c.u;
      commitments_.pop_front();
      continue;
    }
    // Part-way into a commitment: each of its n - 1 inner points has passed with the elapsed fraction.
    const double ut = std::min(u_t, c.u);
    const double frac = c.u > u_clock_ ? std::clamp((ut - u_clock_) / (c.u - u_clock_), 0.0, 1.0) : 0.0;
    const int64_t passed = c.n > 1 ? std::binomial_distribution<int64_t>(c.n - 1, frac)(rng_) : 0;
    emit_uniform(u_clock_, ut, passed, nullptr, out);
    c.n -= passed;
    u_clock_ = ut;
    return;
  }
  emit_fresh(u_clock_, u_t, out);
  u_clock_ = u_t;
}

double ArrivalProcess::time_of_next(int64_t count) {
  if (count <= 0) throw StreamError("stream: time_of_next needs a count > 0, got " + std::to_string(count));
  if (kind_ == Kind::Fluid) {
    const double k = static_cast<double>(next_seq_) + static_cast<double>(count);
    if (k >= kMaxExactCount) throw too_many(std::nullopt);
    return std::max(clock_, profile_.inverse(k));
  }

  // Walk the commitments already made: the answer may lie inside one of them.
  double prev_u = u_clock_;
  int64_t before = 0;
  for (auto it = commitments_.begin(); it != commitments_.end(); ++it) {
    if (before + it->n >= count) {
      const int64_t m = count - before;
      if (m == it->n) return it->t;
      // The m-th of the n - 1 inner uniform points sits at fraction Beta(m, n - m): split the commitment there.
      const double x = std::gamma_distribution<double>(static_cast<double>(m), 1.0)(rng_);
      const double y = std::gamma_distribution<double>(static_cast<double>(it->n - m), 1.0)(rng_);
      const double u = std::clamp(prev_u + (it->u - prev_u) * (x / (x + y)), prev_u, it->u);
      const double t = std::clamp(profile_.inverse(u), clock_, it->t);
      it->n -= m;
      commitments_.insert(it, Commitment{u, t, m});
      return t;
    }
    before += it->n;
    prev_u = it->u;
  }
  // Beyond every commitment the process starts afresh: the gap to the next `rest` points is Gamma(rest, 1).
  const int64_t rest = count - before;
  const double u = prev_u + std::gamma_distribution<double>(static_cast<double>(rest), 1.0)(rng_);
  if (u >= kMaxExactCount) throw too_many(std::nullopt);
  const double floor_t = commitments_.empty() ? clock_ : commitments_.back().t;
  const double t = std::max(floor_t, profile_.inverse(u));
  commitments_.push_back({u, t, rest});
  return t;
}

}  // namespace edgetrain::stream
