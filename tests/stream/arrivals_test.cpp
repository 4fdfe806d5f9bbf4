// Arrival processes: exact fluid counts and times, seeded poisson counts and commitments, and a
// cost per look that does not grow with the rate.
#include "stream/arrivals.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "stream/rates.hpp"

using namespace edgetrain::stream;
using Kind = ArrivalProcess::Kind;

namespace {

RateProfile trace_profile() { return RateProfile::from_steps({0, 2, 5, 5.5, 9}, {10, 0, 3.7, 64.7, 0.3}); }

std::vector<RateProfile> fluid_profiles() {
  return {RateProfile::constant(0.3), RateProfile::constant(64.7), RateProfile::constant(10000), trace_profile(),
          RateProfile::from_steps({0, 0.1, 0.35, 1, 1.7}, {1234.5, 0.7, 0, 9999.9, 3.3})};
}

int64_t total(const std::vector<ArrivalChunk>& chunks) {
  int64_t n = 0;
  for (const ArrivalChunk& c : chunks) n += c.count;
  return n;
}

size_t breakpoints_in(const RateProfile& p, double a, double b) {  // breakpoints in (a, b]
  size_t n = 0;
  for (double x : p.breakpoints()) n += (x > a && x <= b) ? 1 : 0;
  return n;
}

// Chunks continue the sequence numbers, lie in (from, to], stay in one rate step and are non-empty.
void check_chunks(const RateProfile& p, const std::vector<ArrivalChunk>& chunks, int64_t first_seq, double from,
                  double to) {
  int64_t seq = first_seq;
  double last_time = from;
  for (const ArrivalChunk& c : chunks) {
    CHECK(c.count > 0);
    CHECK(c.first_seq == seq);
    seq += c.count;
    CHECK(c.t_first <= c.t_last);
    CHECK(c.t_first >= last_time);
    CHECK(c.t_last <= to);
    if (c.count == 1) CHECK(c.t_first == c.t_last);
    for (double b : p.breakpoints()) {
      const bool straddles = c.t_first < b && b < c.t_last;
      CHECK_FALSE(straddles);
    }
    last_time = c.t_last;
  }
}

}  // namespace

TEST_CASE("fluid arrivals by time t are floor of Lambda of t") {
  std::mt19937_64 rng(3);
  for (const RateProfile& p : fluid_profiles()) {
    for (int sequence = 0; sequence < 40; ++sequence) {
      ArrivalProcess a(p, Kind::Fluid, 0);
      std::exponential_distribution<double> step(sequence % 2 ? 1.0 : 20.0);
      double t = 0;
      for (int i = 0; i < 150; ++i) {
        if (rng() % 5 != 0) t += step(rng);  // sometimes look twice at the same time
        const double before_clock = a.clock();
        const int64_t before = a.total_arrived();
        const std::vector<ArrivalChunk> chunks = a.advance_to(t);
        const int64_t n = a.total_arrived();
        CHECK(n - before == total(chunks));
        check_chunks(p, chunks, before, before_clock, t);
        // The definition: sample k arrives at inverse(k).
        CHECK(p.inverse(static_cast<double>(n)) <= t);
        CHECK(p.inverse(static_cast<double>(n + 1)) > t);
        // ... which is floor(Lambda(t)), up to rounding when Lambda(t) is within a hair of an integer.
        const double lambda = p.cumulative(t), frac = lambda - std::floor(lambda);
        if (frac > 1e-9 && frac < 1 - 1e-9) CHECK(n == static_cast<int64_t>(std::floor(lambda)));
        CHECK(a.clock() == t);
      }
    }
  }
}

TEST_CASE("fluid samples arrive exactly at the inverse of their index") {
  for (const RateProfile& p : fluid_profiles()) {
    ArrivalProcess a(p, Kind::Fluid, 0);
    for (double t = 0.013; t < 12; t += 0.217) {
      for (const ArrivalChunk& c : a.advance_to(t)) {
        for (int64_t j = 0; j < c.count; ++j) {
          const double linear =
              c.count == 1 ? c.t_first : c.t_first + (c.t_last - c.t_first) * double(j) / double(c.count - 1);
          const double exact = p.inverse(static_cast<double>(c.first_seq + j + 1));
          CHECK(linear == doctest::Approx(exact).epsilon(1e-12));
        }
        CHECK(c.t_first == p.inverse(static_cast<double>(c.first_seq + 1)));
        CHECK(c.t_last == p.inverse(static_cast<double>(c.first_seq + c.count)));
      }
    }
  }
}

TEST_CASE("fluid time_of_next is exact") {
  std::mt19937_64 rng(5);
  for (const RateProfile& p : fluid_profiles()) {
    ArrivalProcess a(p, Kind::Fluid, 0);
    for (int i = 0; i < 3000; ++i) {
      if (rng() % 4 == 0) a.advance_to(a.clock() + std::uniform_real_distribution<double>(0, 2)(rng));
      const int64_t m = 1 + static_cast<int64_t>(rng() % 200);
      const int64_t before = a.total_arrived();
      const double t = a.time_of_next(m);
      CHECK(t > a.clock());
      CHECK(total(a.advance_to(t)) == m);
      CHECK(a.total_arrived() == before + m);
      CHECK(total(a.advance_to(t)) == 0);  // looking again at the same time brings nothing
    }
  }
  // One at a time at a fractional rate: the k-th sample arrives at k / 0.3.
  ArrivalProcess slow(RateProfile::constant(0.3), Kind::Fluid, 0);
  for (int k = 1; k <= 1000; ++k) {
    const double t = slow.time_of_next(1);
    CHECK(t == doctest::Approx(k / 0.3));
    const std::vector<ArrivalChunk> chunks = slow.advance_to(t);
    REQUIRE(chunks.size() == 1);
    CHECK(chunks[0].first_seq == k - 1);
    CHECK(chunks[0].count == 1);
  }
}

TEST_CASE("a zero-rate step brings no arrivals") {
  for (Kind kind : {Kind::Fluid, Kind::Poisson}) {
    ArrivalProcess a(trace_profile(), kind, 17);
    a.advance_to(2);
    for (double t = 2.1; t < 5; t += 0.1) CHECK(a.advance_to(t).empty());
    // Waiting from inside the gap: the samples come after it ends.
    CHECK(a.time_of_next(1) > 5);
  }
}

TEST_CASE("arrival cost does not grow with the rate") {
  // 10 and 10,000 samples/s, constant and stepped: one chunk per rate step touched, whatever the rate.
  for (double scale : {1.0, 1000.0}) {
    const std::vector<RateProfile> profiles{
        RateProfile::constant(10 * scale),
        RateProfile::from_steps({0, 1, 1.5, 3, 3.2, 7}, {10 * scale, 3 * scale, 0, 20 * scale, 9 * scale, scale})};
    for (const RateProfile& p : profiles) {
      for (Kind kind : {Kind::Fluid, Kind::Poisson}) {
        ArrivalProcess a(p, kind, 8);
        for (int i = 1; i <= 400; ++i) {
          const double from = a.clock(), to = 0.037 * i * i / 40;
          const std::vector<ArrivalChunk> chunks = a.advance_to(to);
          CHECK(chunks.size() <= 1 + breakpoints_in(p, from, to));
        }
        CHECK(a.total_arrived() > 0);
      }
    }
  }
}

TEST_CASE("arrival processes reject bad calls") {
  ArrivalProcess a(RateProfile::constant(5), Kind::Fluid, 0);
  a.advance_to(1);
  CHECK_THROWS_WITH_AS(a.advance_to(0.5), "stream: cannot advance arrivals to time 0.5, before the clock 1",
                       StreamError);
  CHECK_THROWS_AS(a.advance_to(std::nan("")), StreamError);
  CHECK_THROWS_WITH_AS(a.time_of_next(0), "stream: time_of_next needs a count > 0, got 0", StreamError);
  ArrivalProcess b(RateProfile::constant(5), Kind::Poisson, 0);
  CHECK_THROWS_AS(b.time_of_next(-1), StreamError);
  CHECK(parse_arrival_kind("fluid") == Kind::Fluid);
  CHECK(parse_arrival_kind("poisson") == Kind::Poisson);
  CHECK_THROWS_WITH_AS(parse_arrival_kind("bursty"), "unknown arrival process 'bursty' (expected fluid or poisson)",
                       StreamError);
}

TEST_CASE("poisson counts have mean and variance Lambda") {
  // Constant rate 50 over 4000 intervals of 0.1 s: counts Poisson(5), so the sample mean is within
  // 5 standard errors (5 * sqrt(5 / 4000) = 0.18) of 5, and the sample variance close to 5.
  ArrivalProcess a(RateProfile::constant(50), Kind::Poisson, 2022);
  std::vector<double> counts;
  for (int i = 1; i <= 4000; ++i) {
    const double from = a.clock();
    const int64_t before = a.total_arrived();
    const std::vector<ArrivalChunk> chunks = a.advance_to(0.1 * i);
    check_chunks(a.profile(), chunks, before, from, 0.1 * i);
    counts.push_back(static_cast<double>(total(chunks)));
  }
  double mean = 0, var = 0;
  for (double c : counts) mean += c / counts.size();
  for (double c : counts) var += (c - mean) * (c - mean) / (counts.size() - 1);
  CHECK(std::abs(mean - 5) < 0.18);
  CHECK(std::abs(var - 5) < 0.6);

  // A stepped trace over 2000 s, looked at irregularly: the total is Poisson(Lambda(2000)).
  const RateProfile p = trace_profile();
  ArrivalProcess b(p, Kind::Poisson, 7);
  std::mt19937_64 rng(1);
  double t = 0;
  while (t < 2000) {
    t = std::min(2000.0, t + std::exponential_distribution<double>(2)(rng));
    const double from = b.clock();
    const int64_t before = b.total_arrived();
    check_chunks(p, b.advance_to(t), before, from, t);
  }
  const double lambda = p.cumulative(2000);
  CHECK(std::abs(b.total_arrived() - lambda) < 5 * std::sqrt(lambda));
}

TEST_CASE("poisson time_of_next commits to an exact count") {
  // The time of the m-th next point is Gamma(m, 1) in intensity: over 2000 waits for 10 samples, the
  // mean intensity elapsed is within 5 standard errors (5 * sqrt(10 / 2000) = 0.35) of 10.
  const RateProfile p = trace_profile();
  ArrivalProcess a(p, Kind::Poisson, 99);
  std::mt19937_64 rng(2);
  double elapsed = 0;
  for (int i = 0; i < 2000; ++i) {
    const double from = a.clock();
    const int64_t before = a.total_arrived();
    const double t = a.time_of_next(10);
    CHECK(t >= from);
    elapsed += p.cumulative(t) - p.cumulative(from);
    const std::vector<ArrivalChunk> chunks = a.advance_to(t);
    CHECK(total(chunks) == 10);
    check_chunks(p, chunks, before, from, t);
    CHECK(chunks.back().t_last == t);  // the 10th sample arrives at the committed time itself
  }
  CHECK(std::abs(elapsed / 2000 - 10) < 0.35);
  // Random counts, with looks in between.
  for (int i = 0; i < 2000; ++i) {
    if (rng() % 3 == 0) a.advance_to(a.clock() + std::uniform_real_distribution<double>(0, 3)(rng));
    const int64_t m = 1 + static_cast<int64_t>(rng() % 300);
    CHECK(total(a.advance_to(a.time_of_next(m))) == m);
  }
}

TEST_CASE("poisson advance before the committed time returns a partial count") {
  // Waiting for 11: the 10 earlier points are uniform in intensity, so half-way (in intensity)
  // Binomial(10, 1/2) have come: mean 5, standard error sqrt(2.5 / 3000) = 0.029.
  const RateProfile p = RateProfile::from_steps({0, 3, 4}, {20, 0.5, 7.5});
  ArrivalProcess a(p, Kind::Poisson, 4);
  double sum = 0;
  for (int i = 0; i < 3000; ++i) {
    const double from = a.clock();
    const int64_t before = a.total_arrived();
    const double t = a.time_of_next(11);
    const double half = std::max(from, p.inverse(0.5 * (p.cumulative(from) + p.cumulative(t))));
    const std::vector<ArrivalChunk> first = a.advance_to(half);
    const int64_t j = total(first);
    CHECK(j <= 10);
    check_chunks(p, first, before, from, half);
    const std::vector<ArrivalChunk> rest = a.advance_to(t);
    CHECK(total(rest) == 11 - j);
    check_chunks(p, rest, before + j, half, t);
    sum += static_cast<double>(j);
  }
  CHECK(std::abs(sum / 3000 - 5) < 0.15);
}

TEST_CASE("poisson nested time_of_next calls stay consistent") {
  ArrivalProcess a(trace_profile(), Kind::Poisson, 12);
  std::mt19937_64 rng(6);
  for (int i = 0; i < 500; ++i) {
    const double t5 = a.time_of_next(5);
    const double t3 = a.time_of_next(3);  // inside the first commitment
    const double t8 = a.time_of_next(8);  // beyond it
    const double t6 = a.time_of_next(6);  // between the two
    CHECK(t3 <= t5);
    CHECK(t5 <= t6);
    CHECK(t6 <= t8);
    CHECK(a.time_of_next(5) == t5);  // asking again returns the committed time
    const double early = a.clock() + (t3 - a.clock()) * std::uniform_real_distribution<double>(0, 1)(rng);
    const int64_t j = total(a.advance_to(early));
    CHECK(total(a.advance_to(t3)) == 3 - j);
    CHECK(total(a.advance_to(t5)) == 2);
    CHECK(total(a.advance_to(t6)) == 1);
    CHECK(total(a.advance_to(t8)) == 2);
  }
}

TEST_CASE("poisson arrivals are deterministic per seed") {
  auto run = [](uint64_t seed) {
    ArrivalProcess a(trace_profile(), Kind::Poisson, seed);
    std::vector<double> trace;
    for (int i = 0; i < 300; ++i) {
      const double t = i % 3 == 0 ? a.time_of_next(1 + i % 17) : a.clock() + 0.05 * (i % 7);
      if (i % 5 == 0) a.advance_to(a.clock() + 0.5 * (t - a.clock()));
      for (const ArrivalChunk& c : a.advance_to(t)) {
        trace.insert(trace.end(), {double(c.first_seq), double(c.count), c.t_first, c.t_last});
      }
    }
    return trace;
  };
  CHECK(run(1) == run(1));
  CHECK(run(1) != run(2));
  // Fluid arrivals ignore the seed.
  ArrivalProcess f1(trace_profile(), Kind::Fluid, 1), f2(trace_profile(), Kind::Fluid, 2);
  CHECK(total(f1.advance_to(30)) == total(f2.advance_to(30)));
}

// Found by fuzz/trace_fuzz: poisson draws have no bound of their own (std::poisson_distribution
// returns negative counts near a mean of 1e17 and does not return at 1e20); both processes refuse
// beyond 2^53 samples, which 1e9 samples/s reach in 3 months of simulated time.
TEST_CASE("arrival processes refuse to count beyond 2^53 samples") {
  for (Kind kind : {Kind::Fluid, Kind::Poisson}) {
    ArrivalProcess a(RateProfile::constant(1e9), kind, 3);
    CHECK(total(a.advance_to(0.5)) > 0);
    CHECK_THROWS_WITH_AS(a.advance_to(1e8), "stream: more than 2^53 samples by time 1e+08, too many to count exactly",
                         StreamError);
    ArrivalProcess b(RateProfile::constant(1e9), kind, 3);
    CHECK_THROWS_WITH_AS(b.time_of_next(int64_t{1} << 62), "stream: more than 2^53 samples, too many to count exactly",
                         StreamError);
  }
}

// Found by fuzz/trace_fuzz: where samples come faster than the clock resolves, many arrive at one
// instant and the count was settled one sample at a time (for ever at 2e63 samples/s). The count
// keeps its definition: the largest k with inverse(k) <= t.
TEST_CASE("fluid arrivals faster than the clock resolves") {
  const RateProfile bunched = RateProfile::from_steps({0, 1e8}, {1e-8, 1e9});  // ~15 samples per 1.5e-8 s tick
  ArrivalProcess a(bunched, Kind::Fluid, 0);
  const double t = a.time_of_next(300);
  CHECK(t > 1e8);
  const int64_t arrived = total(a.advance_to(t));
  CHECK(arrived >= 300);
  CHECK(bunched.inverse(static_cast<double>(arrived)) <= t);
  CHECK(bunched.inverse(static_cast<double>(arrived + 1)) > t);
  CHECK(bunched.inverse(static_cast<double>(arrived - 1)) == bunched.inverse(static_cast<double>(arrived)));
}
