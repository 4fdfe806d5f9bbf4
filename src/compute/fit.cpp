// See fit.hpp.
#include "compute/fit.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace edgetrain::compute {

Profile turned(Profile p, Knob knob, double factor) {
  switch (knob) {
    case Knob::flops: p.flops_s *= factor; break;
    case Knob::bytes: p.bytes_s *= factor; break;
    case Knob::overhead: p.layer_overhead_s *= factor; break;
    case Knob::depthwise: p.efficiency[static_cast<size_t>(Kind::depthwise)] *= factor; break;
    case Knob::speed:
      p.flops_s *= factor;
      p.bytes_s *= factor;
      p.layer_overhead_s /= factor;
      break;
  }
  return p;
}

namespace {

Profile apply(const Profile& start, const std::vector<Knob>& knobs, const std::vector<double>& logs) {
  Profile p = start;
  for (size_t i = 0; i < knobs.size(); ++i) p = turned(p, knobs[i], std::exp(logs[i]));
  return p;
}

// Squared log errors, plus a faint pull towards the start so that a knob no point informs stays put.
double loss(const Profile& start, const std::vector<Knob>& knobs, const std::vector<Point>& points,
            const std::vector<double>& logs) {
  const Profile p = apply(start, knobs, logs);
  double l = 0;
  for (const Point& pt : points) {
    const double e = std::log(step_cost(*pt.layers, pt.batch, p).step_s / pt.step_s);
    l += e * e;
  }
  for (double x : logs) l += 1e-6 * x * x;
  return l;
}

}  // namespace

Profile fit_profile(const Profile& start, const std::vector<Knob>& knobs, const std::vector<Point>& points) {
  if (points.empty()) throw std::invalid_argument("fit_profile: no points");
  const size_t n = knobs.size();
  auto f = [&](const std::vector<double>& x) { return loss(start, knobs, points, x); };
  // The simplex: the start and one step of e (a factor 2.7) along each knob.
  std::vector<std::vector<double>> s(n + 1, std::vector<double>(n, 0.0));
  for (size_t i = 0; i < n; ++i) s[i + 1][i] = 1.0;
  std::vector<double> fs(n + 1);
  for (size_t i = 0; i <= n; ++i) fs[i] = f(s[i]);
  for (int iter = 0; iter < 400 * static_cast<int>(n + 1); ++iter) {
    std::vector<size_t> order(n + 1);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return fs[a] < fs[b]; });
    std::vector<std::vector<double>> s2;
    std::vector<double> f2;
    for (size_t i : order) {
      s2.push_back(s[i]);
      f2.push_back(fs[i]);
    }
    s = std::move(s2);
    fs = std::move(f2);
    if (fs[n] - fs[0] < 1e-12) break;
    std::vector<double> c(n, 0.0);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) c[j] += s[i][j] / static_cast<double>(n);
    auto along = [&](double t) {
      std::vector<double> x(n);
      for (size_t j = 0; j < n; ++j) x[j] = c[j] + t * (c[j] - s[n][j]);
      return x;
    };
    const std::vector<double> r = along(1.0);
    const double fr = f(r);
    if (fr < fs[0]) {
      const std::vector<double> e = along(2.0);
      const double fe = f(e);
      if (fe < fr) s[n] = e, fs[n] = fe;
      else s[n] = r, fs[n] = fr;
    } else if (fr < fs[n - 1]) {
      s[n] = r, fs[n] = fr;
    } else {
      const std::vector<double> k = along(-0.5);
      const double fk = f(k);
      if (fk < fs[n]) {
        s[n] = k, fs[n] = fk;
      } else {  // shrink towards the best
        for (size_t i = 1; i <= n; ++i) {
          for (size_t j = 0; j < n; ++j) s[i][j] = s[0][j] + 0.5 * (s[i][j] - s[0][j]);
          fs[i] = f(s[i]);
        }
      }
    }
  }
  const size_t best = static_cast<size_t>(std::min_element(fs.begin(), fs.end()) - fs.begin());
  return apply(start, knobs, s[best]);
}

double fit_flop_rate(const std::vector<Point>& points) {
  if (points.empty()) throw std::invalid_argument("fit_flop_rate: no points");
  double sum = 0;
  for (const Point& pt : points) sum += std::log(flop_model_step_s(*pt.layers, pt.batch, 1.0) / pt.step_s);
  return std::exp(sum / static_cast<double>(points.size()));
}

}  // namespace edgetrain::compute
