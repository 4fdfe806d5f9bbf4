// A device's random churn (faults.devices with mtbf_s and mttr_s): its on and off spans drawn from
// exponential distributions with a generator seeded per device. The cycles can be resumed from the
// count of values drawn, so a population keeps that count per device rather than a 2.5 kB generator
// (resuming costs a pass over the values drawn before). Pure C++, no simulator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>

#include "scenario/scenario.hpp"

namespace edgetrain::sim {

struct ChurnCycle {
  double off_at, on_at;  // planned times: off from off_at, back on at on_at
};

class ChurnCycles {
 public:
  // The cycles of `device` after `drawn` values were drawn (0: from the start of the run).
  ChurnCycles(uint64_t scenario_seed, size_t device, const scenario::DeviceFaultSpec& spec, uint64_t drawn = 0);
  // The cycle that starts when the device comes back on at `on_at` (0 at the start): its time up,
  // then its time down, each at least the clock's resolution so that the clock moves between them.
  ChurnCycle next(double on_at);
  uint64_t drawn() const { return engine_.drawn; }

 private:
  // The generator, counting what it gives.
  struct Counted {
    using result_type = std::mt19937_64::result_type;
    static constexpr result_type min() { return std::mt19937_64::min(); }
    static constexpr result_type max() { return std::mt19937_64::max(); }
    result_type operator()() {
      ++drawn;
      return rng();
    }
    std::mt19937_64 rng;
    uint64_t drawn = 0;
  };
  Counted engine_;
  std::exponential_distribution<double> up_, down_;
};

}  // namespace edgetrain::sim
