// Arrival processes. `fluid` is deterministic: sample k (k = 1, 2, ...) arrives when
// Lambda(t) reaches k, so floor(Lambda(t)) samples have arrived by time t. `poisson` is a
// non-homogeneous Poisson process with intensity rate(t), seeded. Both are advanced from one
// look at the buffer to the next: the cost of a look does not grow with the rate.
#pragma once

#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "stream/rate_profile.hpp"

namespace edgetrain::stream {

// `count` samples (consecutive sequence numbers from `first_seq`) whose arrival times are
// spread linearly from `t_first` to `t_last` (equal when count == 1). Chunks never straddle a
// rate breakpoint, so for fluid arrivals the linear spread is exact; for poisson arrivals the
// count is an exact draw and the times are placed at their expected positions within the
// interval (this only affects the age statistics).
struct ArrivalChunk {
  int64_t first_seq = 0;
  int64_t count = 0;
  double t_first = 0, t_last = 0;
};

class ArrivalProcess {
 public:
  enum class Kind { Fluid, Poisson };
  // `seed` seeds this process's generator as is: derive it per device (util::derive_seed).
  ArrivalProcess(RateProfile profile, Kind kind, uint64_t seed);

  // Samples arriving in (clock, t]; moves the clock to t (t >= clock, else StreamError).
  // One chunk per rate step touched, so at most 1 + (breakpoints crossed) chunks, plus one per
  // poisson commitment (time_of_next) reached.
  std::vector<ArrivalChunk> advance_to(double t);
  // The time at which `count` (> 0) more samples will have arrived after the clock. For poisson
  // this draws the answer and commits to it: a later advance_to(that time) returns exactly
  // `count` samples, and an advance_to to an earlier time returns a consistent partial count.
  // For fluid it is exact: the clock's arrival count plus `count`, at Lambda^-1. (Exactly
  // `count` unless a further sample arrives at the very same floating-point instant, which
  // takes rates of about 1e12 samples/s.)
  double time_of_next(int64_t count);

  double clock() const { return clock_; }
  int64_t total_arrived() const { return next_seq_; }
  const RateProfile& profile() const { return profile_; }

 private:
  // Poisson commitment: `n` points in intensity (previous u, u], the last one exactly at u,
  // the n - 1 others uniform (conditioned on the n-th point of a unit-rate process).
  struct Commitment {
    double u, t;  // intensity position and its time, inverse(u)
    int64_t n;
  };

  int64_t fluid_count_by(double t) const;
  void poisson_advance(double t, double u_t, std::vector<ArrivalChunk>& out);
  void emit_fluid(int64_t k_to, std::vector<ArrivalChunk>& out);
  void emit_uniform(double ua, double ub, int64_t n, const Commitment* end, std::vector<ArrivalChunk>& out);
  void emit_fresh(double ua, double ub, std::vector<ArrivalChunk>& out);
  void push(std::vector<ArrivalChunk>& out, int64_t count, double t_first, double t_last);

  RateProfile profile_;
  Kind kind_;
  std::mt19937_64 rng_;
  double clock_ = 0;
  int64_t next_seq_ = 0;
  double u_clock_ = 0;                  // poisson: intensity position of the clock
  std::deque<Commitment> commitments_;  // poisson: in increasing u, consecutive
};

// "fluid" | "poisson"; throws StreamError otherwise.
ArrivalProcess::Kind parse_arrival_kind(const std::string& name);

}  // namespace edgetrain::stream
