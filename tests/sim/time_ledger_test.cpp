// The time ledger's end-of-run closing: the four buckets add up to the run's length exactly, as
// doubles, in every order of addition, after many charges whose plain sums drift by a few ulp.
#include "sim/core/time_ledger.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <random>

using edgetrain::sim::TimeLedger;

TEST_CASE("time ledger: closed buckets add up to the run's length exactly in any order") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> span(1e-7, 0.3);
  std::uniform_int_distribution<int> which(0, 3);
  int drifted = 0;  // runs whose plain sum of charges differs from the end: the case being fixed
  for (int run = 0; run < 200; ++run) {
    edgetrain::report::DeviceRecord record;
    TimeLedger ledger(&record, 0.0);
    double now = 0;
    for (int k = 0; k < 500; ++k) {
      now += span(rng);
      ledger.charge(static_cast<TimeLedger::Bucket>(which(rng)), now);
    }
    const double end = now + span(rng);
    ledger.finish(end);
    drifted += record.compute_s + record.comm_s + record.wait_s + record.offline_s != end;
    const double before[] = {record.compute_s, record.comm_s, record.offline_s};
    ledger.close(end);  // nothing left to charge: the mark is at `end` already
    CAPTURE(run);
    std::array<double, 4> b{record.compute_s, record.comm_s, record.wait_s, record.offline_s};
    std::sort(b.begin(), b.end());
    do {
      CHECK(b[0] + b[1] + b[2] + b[3] == end);
    } while (std::next_permutation(b.begin(), b.end()));
    // Rounding moves a bucket by at most a few ulp of the run's length.
    CHECK(std::abs(record.compute_s - before[0]) <= 4e-16 * end);
    CHECK(std::abs(record.comm_s - before[1]) <= 4e-16 * end);
    CHECK(std::abs(record.offline_s - before[2]) <= 4e-16 * end);
    CHECK(record.wait_s >= 0);
  }
  CHECK(drifted > 0);  // the plain sums do drift
}
